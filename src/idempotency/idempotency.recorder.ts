import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IdempotencyClaim, IdempotencyStore, StoredResponse } from './idempotency.store';

/**
 * Headers that describe the response itself and are replayed with it. Per-request headers (traceparent,
 * RateLimit-*, Connection) belong to the request that replays and are set afresh.
 */
export const REPLAYED_HEADERS = [
  'content-type',
  'content-language',
  'location',
  'etag',
  'cache-control',
  'retry-after',
  'deprecation',
  'sunset',
  'link',
] as const;

function replayedHeaders(reply: FastifyReply): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value : String(value);
  }
  return headers;
}

/** The sent body as text; undefined for a stream, which cannot be kept. */
function bodyText(payload: unknown): string | null | undefined {
  if (payload === null || payload === undefined) return null;
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return undefined;
}

/**
 * Records the final response of every claimed request, exactly as it goes out: a Fastify `onSend` hook
 * sees it after serialization, whether a handler produced it or the problem filter rendered an error
 * (which happens after the interceptor has seen the exception). 2xx–4xx outcomes complete the key (Stripe's
 * semantics: a validation failure replays as the same failure); a 5xx or a body that cannot be kept gives
 * the key back so the client can retry. The record is written before the response leaves, so a retry that
 * follows the response always finds it.
 */
/** The claim each executing request holds (set by the interceptor, read here and by @ClaimedIdempotencyKey). */
const claims = new WeakMap<FastifyRequest, IdempotencyClaim>();

/** The claim `request` holds, if it executes under an Idempotency-Key. */
export function claimOf(request: FastifyRequest): IdempotencyClaim | undefined {
  return claims.get(request);
}

@Injectable()
export class IdempotencyRecorder implements OnModuleInit {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly store: IdempotencyStore,
  ) {}

  /** Runs before Fastify is ready (routes collect their hooks then), so the hook reaches every route. */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    // A callback hook: the responses of requests without a claim (nearly all) pass without a promise.
    fastify?.addHook('onSend', (request, reply, payload, done) => {
      const claim = claims.get(request);
      if (!claim) return done(null, payload);
      claims.delete(request);
      void this.record(request, reply, payload, claim).then(
        (sent) => done(null, sent),
        (error: unknown) => done(error as Error),
      );
    });
  }

  /** The response of `request` completes (or releases) `claim`. */
  track(request: FastifyRequest, claim: IdempotencyClaim): void {
    claims.set(request, claim);
  }

  private async record(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    claim: IdempotencyClaim,
  ): Promise<unknown> {
    const body = bodyText(payload);
    try {
      if (reply.statusCode >= 500 || body === undefined) {
        if (body === undefined) this.logger.warn(`a streamed response cannot be replayed: ${request.url}`);
        await this.store.release(claim);
        return payload;
      }
      const response: StoredResponse = { status: reply.statusCode, headers: replayedHeaders(reply), body };
      if (!(await this.store.complete(claim, response))) {
        this.logger.warn(`idempotency claim was taken over before ${request.method} ${request.url} ended`);
      }
    } catch (error: unknown) {
      // The response still goes out; the claim stays IN_PROGRESS until it times out and can be taken over.
      this.logger.error({ msg: 'idempotency outcome not recorded', url: request.url, err: error }, undefined);
    }
    return payload;
  }
}
