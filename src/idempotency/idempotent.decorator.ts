import { SetMetadata } from '@nestjs/common';

export const IDEMPOTENT_METADATA = 'idempotency:options';
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Sent on a replayed response only. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

export interface IdempotentOptions {
  /** A request without the header is 400 `VALIDATION_ERROR` (field `Idempotency-Key`, code `REQUIRED`). */
  required?: boolean;
}

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
  SetMetadata(IDEMPOTENT_METADATA, { required: options.required ?? false } satisfies IdempotentOptions);
