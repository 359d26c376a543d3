export const IDEMPOTENT_METADATA = 'idempotency:options';
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Sent on a replayed response only. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

export interface IdempotentOptions {
  /** A request without the header is 400 `VALIDATION_ERROR` (field `Idempotency-Key`, code `REQUIRED`). */
  required?: boolean;
  /**
   * The answer carries a secret (a webhook endpoint's create and rotate): it is stored encrypted with the
   * secret cipher and opened again only to replay it.
   */
  sealed?: boolean;
}
