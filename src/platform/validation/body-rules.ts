import { SetMetadata } from '@nestjs/common';

export const OPTIONAL_BODY = 'validation:optional-body';

/**
 * The handler's `@Body()` may be absent (an action whose parameters are all optional, e.g. refund). Without
 * it, a handler that takes a body requires one (`{}` is a body), and a handler that takes none refuses one
 * with fields in it.
 */
export const OptionalBody = (): MethodDecorator => SetMetadata(OPTIONAL_BODY, true);
