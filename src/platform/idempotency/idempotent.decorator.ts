import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { HeaderRules } from '../validation/header-rules';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_METADATA, IdempotentOptions } from './idempotency.constants';
import { IdempotencyInterceptor } from './idempotency.interceptor';

export {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_METADATA,
  IDEMPOTENT_REPLAYED_HEADER,
} from './idempotency.constants';
export type { IdempotentOptions } from './idempotency.constants';

/**
 * The handler honours `Idempotency-Key` (POST and PATCH; the header is ignored on other methods): the
 * first final response to a key (2xx or 4xx: status, headers, body) is stored for the caller and replayed
 * for a retry with the same method, path and body, with `Idempotent-Replayed: true`; the same key with
 * another request is 409 `IDEMPOTENCY_KEY_REUSED`, a retry while the first still runs 409
 * `IDEMPOTENCY_KEY_IN_PROGRESS`. A present key must be a uuid on every route.
 *
 *   @Post() @HttpCode(201) @Idempotent({ required: true })
 *   create(@Body() body: CreateOrderRequest) { … }
 */
export const Idempotent = (options: IdempotentOptions = {}): MethodDecorator =>
  applyDecorators(
    SetMetadata(IDEMPOTENT_METADATA, {
      required: options.required ?? false,
      sealed: options.sealed ?? false,
    } satisfies IdempotentOptions),
    // Checked with the rest of the request's input, so a missing or malformed key is reported together
    // with every other violation, and a refused request binds no key.
    HeaderRules({ name: IDEMPOTENCY_KEY_HEADER, required: options.required ?? false, format: 'uuid' }),
    // Bound to the marked handlers only: every other request skips the interceptor entirely.
    UseInterceptors(IdempotencyInterceptor),
  );
