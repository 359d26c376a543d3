import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { from, Observable, of, switchMap } from 'rxjs';
import { AppException } from '../problem/app-exception';
import { IDEMPOTENT_METADATA, IDEMPOTENT_REPLAYED_HEADER, IdempotentOptions } from './idempotency.constants';
import { IdempotencyRecorder } from './idempotency.recorder';
import { IdempotencyStore, StoredResponse } from './idempotency.store';
import { idempotencyKeyOf, requestFingerprint } from './request-fingerprint';

const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH']);
const CLAIMED = Symbol('claimed');
/** Suggested wait before retrying a key that is still being processed. */
const IN_PROGRESS_RETRY_AFTER_SECONDS = '1';

/** Keys are per caller: the token's `sub`, or the client address on public routes. */
function callerIdOf(request: FastifyRequest): string {
  return request.caller?.userId ?? `anonymous:${request.ip}`;
}

/**
 * Idempotency-Key for handlers marked `@Idempotent()` (POST and PATCH). Runs after the guards (the caller
 * is known) and before the pipes, so a validation failure is an outcome of the key like any other. The
 * request either claims the key and executes, or replays the recorded response, or is refused with 409.
 * A request that claimed its key executes in its request's unit of work (RequestTransaction, which every
 * changing request runs in), whose commit writes the key's outcome with the change (IdempotencyRecorder), so a
 * change is never committed without the answer a retry will get
 * (docs/decisions/0100-exactly-once-request-unit-of-work.md).
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly store: IdempotencyStore,
    private readonly recorder: IdempotencyRecorder,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const options = this.reflector.get<IdempotentOptions | undefined>(
      IDEMPOTENT_METADATA,
      context.getHandler(),
    );
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    if (!options || !IDEMPOTENT_METHODS.has(request.method)) return next.handle();
    const key = idempotencyKeyOf(request.headers['idempotency-key'], options.required ?? false);
    if (key === undefined) return next.handle();

    const reply = http.getResponse<FastifyReply>();
    return from(this.claimOrReplay(request, key, options.sealed ?? false)).pipe(
      switchMap((claimed) => (claimed === CLAIMED ? next.handle() : of(this.replay(reply, claimed)))),
    );
  }

  /** CLAIMED when the request claimed the key and executes; the recorded response otherwise. */
  private async claimOrReplay(
    request: FastifyRequest,
    key: string,
    sealed: boolean,
  ): Promise<typeof CLAIMED | StoredResponse> {
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    const outcome = await this.store.claim({ callerId: callerIdOf(request), key }, fingerprint, sealed);
    if ('claim' in outcome) {
      this.recorder.track(request, outcome.claim);
      return CLAIMED;
    }
    const { record } = outcome;
    if (record.fingerprint !== fingerprint) throw new AppException('IDEMPOTENCY_KEY_REUSED');
    if (record.state === 'IN_PROGRESS') {
      throw new AppException('IDEMPOTENCY_KEY_IN_PROGRESS', {
        headers: { 'retry-after': IN_PROGRESS_RETRY_AFTER_SECONDS },
      });
    }
    return record.response;
  }

  /** The recorded status, headers and body, byte for byte (the JSON output rules leave strings alone). */
  private replay(reply: FastifyReply, response: StoredResponse): string | undefined {
    void reply.status(response.status).headers(response.headers).header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    return response.body ?? undefined;
  }
}
