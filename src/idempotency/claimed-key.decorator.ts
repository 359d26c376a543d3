import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { claimOf } from './idempotency.recorder';

/**
 * The Idempotency-Key a request executes under, as an effect may record it: `reference` names the caller and
 * the key, `windowSeconds` is how long the key's record lives. The key's response is recorded after the
 * effect commits, by another statement; if the process dies between the two, the claim goes stale and a
 * retry executes again (after IN_PROGRESS_TIMEOUT_SECONDS). An effect that stores `reference` in its own
 * transaction can find what it already did within `windowSeconds` and return that instead of doing it twice.
 */
export interface ClaimedKey {
  reference: string;
  windowSeconds: number;
}

/** The handler's `ClaimedKey`, or undefined when the request carries no Idempotency-Key. */
export const ClaimedIdempotencyKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ClaimedKey | undefined => {
    const claim = claimOf(context.switchToHttp().getRequest<FastifyRequest>());
    return claim && { reference: `${claim.callerId} ${claim.key}`, windowSeconds: claim.ttlSeconds };
  },
);
