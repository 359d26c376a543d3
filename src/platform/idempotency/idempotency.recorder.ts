import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Transactions, type Tx } from '../database/transactions';
import { RequestOutcomes, RequestTransaction } from '../http/request-transaction';
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

/** The claim an executing request holds, by request (set by the interceptor). */
const claims = new WeakMap<FastifyRequest, IdempotencyClaim>();

/**
 * The outcome of every request that claimed its key, exactly as its answer goes out (RequestTransaction calls
 * it from Fastify's `onSend`, after serialization, whether a handler produced the answer or the problem filter
 * rendered an error). 2xx–4xx outcomes complete the key (Stripe's semantics: a validation failure replays as
 * the same failure); a 5xx or a body that cannot be kept gives the key back so the client can retry. The
 * record is written before the answer leaves, so a retry that follows the answer always finds it.
 *
 * When the request changed something, its outcome is the last work of the request's transaction and commits
 * with the change: a process that dies at any moment leaves either both (a retry replays the outcome) or
 * neither (a retry executes afresh, once the claim went stale)
 * (docs/decisions/0100-exactly-once-request-unit-of-work.md).
 */
@Injectable()
export class IdempotencyRecorder implements RequestOutcomes<StoredResponse>, OnModuleInit {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyStore,
    private readonly transactions: Transactions,
    private readonly requestTransaction: RequestTransaction,
  ) {}

  onModuleInit(): void {
    this.requestTransaction.keepOutcomes(this);
  }

  /** The answer of `request` completes (or releases) `claim`. */
  track(request: FastifyRequest, claim: IdempotencyClaim): void {
    claims.set(request, claim);
  }

  /**
   * The outcome to store for this answer (undefined without a claim), or null when it must not be stored (a
   * 5xx, or a stream that cannot be kept): then nothing of the request may commit, and `release` gives the
   * key back.
   */
  outcomeOf(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
  ): StoredResponse | null | undefined {
    if (!claims.has(request)) return undefined;
    const body = bodyText(payload);
    if (body === undefined) this.logger.warn(`a streamed response cannot be replayed: ${request.url}`);
    if (reply.statusCode >= 500 || body === undefined) return null;
    return { status: reply.statusCode, headers: replayedHeaders(reply), body };
  }

  /** Writes the outcome in the request's transaction `tx`, as its last work; throws when the claim was taken over. */
  async recordIn(tx: Tx, request: FastifyRequest, response: StoredResponse): Promise<void> {
    const claim = this.take(request);
    if (claim && !(await this.store.complete(tx, claim, response))) throw new ClaimTakenOver(request);
  }

  /** Writes the outcome of a request that changed nothing, in a transaction of its own. */
  async recordAlone(request: FastifyRequest, response: StoredResponse): Promise<void> {
    const claim = this.take(request);
    if (!claim) return;
    try {
      const completed = await this.transactions.runAlone((tx) => this.store.complete(tx, claim, response));
      if (!completed) {
        this.logger.warn(`idempotency claim was taken over before ${request.method} ${request.url} ended`);
      }
    } catch (error: unknown) {
      // The response still goes out; the claim stays IN_PROGRESS until it times out and can be taken over.
      this.logger.error({ msg: 'idempotency outcome not recorded', url: request.url, err: error }, undefined);
    }
  }

  /**
   * Nothing of the request was committed: its key is given back (unless another request took it over, which
   * `error` says).
   */
  async release(request: FastifyRequest, error?: unknown): Promise<void> {
    const claim = this.take(request);
    if (!claim || error instanceof ClaimTakenOver) return;
    try {
      await this.store.release(claim);
    } catch (failure: unknown) {
      // The claim stays IN_PROGRESS until it times out and can be taken over.
      this.logger.error({ msg: 'idempotency key not released', url: request.url, err: failure }, undefined);
    }
  }

  private take(request: FastifyRequest): IdempotencyClaim | undefined {
    const claim = claims.get(request);
    claims.delete(request);
    return claim;
  }
}

/** The claim went stale and another request took it over: this one's changes must not commit. */
export class ClaimTakenOver extends Error {
  constructor(request: FastifyRequest) {
    super(`idempotency claim was taken over before ${request.method} ${request.url} ended`);
  }
}
