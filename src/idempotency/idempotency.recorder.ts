import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as diagnostics_channel from 'node:diagnostics_channel';
import { UnitOfWork } from '../database/transactions';
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
 * Published right after a request's unit of work committed, before its answer is sent: `{ operation }`, the
 * method and route pattern (`POST /api/v1/orders/:orderId/confirm`). For crash drills and tests, which kill
 * the process at that moment (the worst one for a retry); a publish without subscribers costs nothing.
 */
export const REQUEST_COMMITTED_CHANNEL = 'order-service:request-committed';
const committedChannel = diagnostics_channel.channel(REQUEST_COMMITTED_CHANNEL);

/** The claim an executing request holds and the unit of work it executes in (set by the interceptor). */
interface Execution {
  claim: IdempotencyClaim;
  unit: UnitOfWork;
}

/**
 * Records the final response of every claimed request, exactly as it goes out: a Fastify `onSend` hook
 * sees it after serialization, whether a handler produced it or the problem filter rendered an error
 * (which happens after the interceptor has seen the exception). 2xx–4xx outcomes complete the key (Stripe's
 * semantics: a validation failure replays as the same failure); a 5xx or a body that cannot be kept gives
 * the key back so the client can retry. The record is written before the response leaves, so a retry that
 * follows the response always finds it.
 *
 * When the request's unit of work holds changes, the outcome is written in its transaction and commits with
 * them: a process that dies at any moment leaves either both (a retry replays the outcome) or neither (a
 * retry executes afresh, once the claim went stale). A 5xx rolls the changes back with the key; so does a
 * failed commit, which then answers 500 instead of an outcome that did not happen. A unit whose work failed
 * (rolled back as its own transaction would have been) records its outcome alone.
 */
const executions = new WeakMap<FastifyRequest, Execution>();

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
      const execution = executions.get(request);
      if (!execution) return done(null, payload);
      executions.delete(request);
      void this.record(request, reply, payload, execution).then(
        (sent) => done(null, sent),
        (error: unknown) => done(error as Error),
      );
    });
  }

  /** The response of `request` completes (or releases) `claim`, and ends `unit`. */
  track(request: FastifyRequest, claim: IdempotencyClaim, unit: UnitOfWork): void {
    executions.set(request, { claim, unit });
  }

  private async record(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    { claim, unit }: Execution,
  ): Promise<unknown> {
    const body = bodyText(payload);
    if (reply.statusCode >= 500 || body === undefined) {
      if (body === undefined) this.logger.warn(`a streamed response cannot be replayed: ${request.url}`);
      await unit.rollback();
      await this.release(request, claim);
      return payload;
    }
    const response: StoredResponse = { status: reply.statusCode, headers: replayedHeaders(reply), body };
    if (unit.open && !unit.rollbackOnly) {
      try {
        await unit.commit(async (db) => {
          if (!(await this.store.complete(claim, response, db))) throw new ClaimTakenOver(request);
        });
      } catch (error: unknown) {
        // Nothing of the request was committed: its key is given back (unless another request holds it).
        if (!(error instanceof ClaimTakenOver)) await this.release(request, claim);
        throw error;
      }
      if (committedChannel.hasSubscribers) {
        committedChannel.publish({ operation: `${request.method} ${request.routeOptions.url}` });
      }
      await unit.runAfterCommit();
      return payload;
    }
    await unit.rollback();
    try {
      if (!(await this.store.complete(claim, response))) {
        this.logger.warn(`idempotency claim was taken over before ${request.method} ${request.url} ended`);
      }
    } catch (error: unknown) {
      // The response still goes out; the claim stays IN_PROGRESS until it times out and can be taken over.
      this.logger.error({ msg: 'idempotency outcome not recorded', url: request.url, err: error }, undefined);
    }
    return payload;
  }

  private async release(request: FastifyRequest, claim: IdempotencyClaim): Promise<void> {
    try {
      await this.store.release(claim);
    } catch (error: unknown) {
      // The claim stays IN_PROGRESS until it times out and can be taken over.
      this.logger.error({ msg: 'idempotency key not released', url: request.url, err: error }, undefined);
    }
  }
}

/** The claim went stale and another request took it over: this one's changes must not commit. */
class ClaimTakenOver extends Error {
  constructor(request: FastifyRequest) {
    super(`idempotency claim was taken over before ${request.method} ${request.url} ended`);
  }
}
