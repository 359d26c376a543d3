import { HeaderRules } from '../validation/header-rules';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency.constants';

/**
 * The handler cannot honour `Idempotency-Key`: a request carrying one is 400 VALIDATION_ERROR (violation
 * INVALID_VALUE on `Idempotency-Key`), with the request's other violations, before anything runs, rather
 * than executed unprotected while the client believes a retry is safe. For streamed uploads, whose body is
 * stored as it arrives: there is no body to fingerprint when the key would be bound
 * (docs/decisions/0056-uploads-refuse-idempotency-key.md).
 */
export const IdempotencyKeyRefused = (): MethodDecorator =>
  HeaderRules({ name: IDEMPOTENCY_KEY_HEADER, refused: true });
