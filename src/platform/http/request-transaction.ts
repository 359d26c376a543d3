import { Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import * as diagnostics_channel from 'node:diagnostics_channel';
import { ReadYourWrites } from '../database/read-your-writes';
import { Transactions, type Tx, UnitOfWork } from '../database/transactions';

/** Methods whose handlers may change something: they run in a request unit of work. */
const CHANGING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Published right after a request's unit of work committed, before its answer is sent: `{ operation }`, the
 * method and route pattern (`POST /api/v1/orders/:orderId/confirm`). For crash drills and tests, which kill
 * the process at that moment (the worst one for a retry); a publish without subscribers costs nothing.
 */
export const REQUEST_COMMITTED_CHANNEL = 'order-service:request-committed';
const committedChannel = diagnostics_channel.channel(REQUEST_COMMITTED_CHANNEL);

const units = new WeakMap<FastifyRequest, UnitOfWork>();

/**
 * What a request's answer adds to its commit: the Idempotency-Key's outcome (IdempotencyRecorder, which
 * registers itself: the key's mechanism builds on this one).
 */
export interface RequestOutcomes<O> {
  /**
   * The outcome to keep for this answer; undefined when the request has none to keep (no key); null when it
   * has one that must not be kept (a 5xx, a stream): then nothing of the request commits.
   */
  outcomeOf(request: FastifyRequest, reply: FastifyReply, payload: unknown): O | null | undefined;
  /** Writes it as the last work of the request's transaction; throws to roll everything back. */
  recordIn(tx: Tx, request: FastifyRequest, outcome: O): Promise<void>;
  /** Writes it alone: the request changed nothing, or its work failed and was rolled back. */
  recordAlone(request: FastifyRequest, outcome: O): Promise<void>;
  /** Nothing of the request committed (`error`: why the commit failed). */
  release(request: FastifyRequest, error?: unknown): Promise<void>;
}

/**
 * Every request to a route that may change something (POST, PUT, PATCH, DELETE) runs in one unit of work: every `Transactions.run` of its services
 * joins one transaction (begun by the first of them: a request that writes nothing costs nothing), and this is
 * the one place where it ends, in Fastify's `onSend` once the answer is final (after serialization, whether a
 * handler produced it or the problem filter rendered an error). A 5xx rolls it back; otherwise it commits,
 * with the Idempotency-Key's outcome as its last work when the request claimed one (IdempotencyRecorder), so a
 * change never commits without the answer a retry will get; a failed commit answers 500 instead of an outcome
 * that did not happen. Work that must follow the commit (queueing a task) runs then. Keyed or not, the
 * services run the same transaction code (docs/decisions/0100-exactly-once-request-unit-of-work.md).
 *
 * The scope wraps the route's handler as Fastify registers it (its `onRoute` hook), so the handler, its
 * guards, interceptors and pipes and all they start run in it; reads pay nothing (no wrapper, no hook work).
 * With read replicas, every request is also a read session of its caller (ReadYourWrites): its commit is
 * remembered for the caller, and its replica reads wait for the caller's last write.
 */
@Injectable()
export class RequestTransaction {
  private outcomes?: RequestOutcomes<unknown>;

  constructor(
    private readonly transactions: Transactions,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  /** `outcomes` are kept with each request's commit. */
  keepOutcomes<O>(outcomes: RequestOutcomes<O>): void {
    this.outcomes = outcomes as RequestOutcomes<unknown>;
  }

  /** Before any route is registered (`onRoute` sees each one as it is). */
  register(fastify: FastifyInstance): void {
    fastify.addHook('onRoute', (route) => {
      const methods = [route.method].flat();
      const readYourWrites = this.readYourWrites;
      if (methods.some((method) => CHANGING_METHODS.has(method))) {
        const handler = route.handler;
        const transactions = this.transactions;
        route.handler = function inRequestTransaction(this: FastifyInstance, request, reply) {
          if (!CHANGING_METHODS.has(request.method)) return handler.call(this, request, reply);
          const unit = transactions.unitOfWork();
          units.set(request, unit);
          return transactions.within(unit, () => handler.call(this, request, reply));
        } as RouteHandlerMethod;
      }
      if (readYourWrites.enabled) {
        const handler = route.handler;
        route.handler = function inReadSession(this: FastifyInstance, request, reply) {
          // The caller is known once the bearer guard, inside the handler, has run.
          return readYourWrites.session(
            () => request.caller?.userId,
            () => handler.call(this, request, reply),
          );
        } as RouteHandlerMethod;
      }
    });
    // A callback hook: the answers of requests without a unit (every read) pass without a promise.
    fastify.addHook('onSend', (request, reply, payload, done) => {
      const unit = units.get(request);
      if (!unit) return done(null, payload);
      units.delete(request);
      this.end(request, reply, payload, unit).then(
        () => done(null, payload),
        (error: unknown) => done(error as Error),
      );
    });
  }

  private async end(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    unit: UnitOfWork,
  ): Promise<void> {
    const outcomes = this.outcomes;
    const outcome = outcomes?.outcomeOf(request, reply, payload);
    if (reply.statusCode >= 500 || outcome === null) {
      await unit.rollback();
      await outcomes?.release(request);
      return;
    }
    if (unit.open && !unit.rollbackOnly) {
      try {
        await unit.commit(
          outcome === undefined
            ? undefined
            : (tx) => (outcomes as RequestOutcomes<unknown>).recordIn(tx, request, outcome),
        );
      } catch (error: unknown) {
        await outcomes?.release(request, error);
        throw error;
      }
      if (committedChannel.hasSubscribers) {
        committedChannel.publish({ operation: `${request.method} ${request.routeOptions.url}` });
      }
      await unit.runAfterCommit();
      return;
    }
    // Nothing to commit (or the work failed and was rolled back as its own transaction would have been).
    await unit.rollback();
    if (outcome !== undefined) await outcomes?.recordAlone(request, outcome);
  }
}
