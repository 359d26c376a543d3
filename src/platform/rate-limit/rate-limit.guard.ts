import { ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Authenticator } from '../auth/authenticator';
import { AppException } from '../problem/app-exception';
import { isRateLimitRecord, type ThrottlerStorageRecord } from './rate-limit-window';
import { isApiRoute } from '../http/api-route';

/** The rate-limit headers the API sends; the library's `X-RateLimit-*` are never sent. */
export const RATE_LIMIT_HEADERS = {
  limit: 'RateLimit-Limit',
  remaining: 'RateLimit-Remaining',
  reset: 'RateLimit-Reset',
  retryAfter: 'Retry-After',
} as const;

/** While the counter store is failing, one warning per this interval, not one per request. */
const STORE_DOWN_WARNING_INTERVAL_MS = 60_000;

/**
 * Per-client fixed-window rate limit on every /api route, before authentication (global guards run in
 * module order). A client is the token's `sub` when the request carries a valid token, else its IP, and
 * all routes draw on one quota (the library keys per route). Every limited response carries
 * `RateLimit-Limit`, `-Remaining` and `-Reset` (Unix seconds), set on the reply here so that the 401/403
 * of the auth guard and any later error carry them too; over the limit it is 429 `RATE_LIMIT_EXCEEDED`
 * with `Retry-After`, rendered by the one problem filter.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly storeLogger = new Logger('RateLimit');
  private lastStoreWarningAt = Number.NEGATIVE_INFINITY;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly authenticator: Authenticator,
  ) {
    super(options, storage, reflector);
  }

  /**
   * The library's `canActivate` reads six route metadata entries per throttler and request (its @Throttle
   * and @SkipThrottle decorators). This service has no per-route limits, so none are read: the configured
   * throttlers apply to every business route as they are (docs/decisions/0082-per-process-work-once.md).
   */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (await this.shouldSkip(context)) return true;
    for (const throttler of this.throttlers) {
      const ttl = throttler.ttl as number;
      await this.handleRequest({
        context,
        limit: throttler.limit as number,
        ttl,
        throttler,
        blockDuration: ttl,
        getTracker: this.commonOptions.getTracker as ThrottlerRequest['getTracker'],
        generateKey: this.commonOptions.generateKey as ThrottlerRequest['generateKey'],
      });
    }
    return true;
  }

  /** Only business routes are limited; operational endpoints (/health, /ready, ...) never are. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    return !isApiRoute(context.switchToHttp().getRequest<FastifyRequest>());
  }

  /** `user:<sub>` for a request with a valid token, else `ip:<address>` (IPv6 per /64, as the library). */
  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    const request = req as unknown as FastifyRequest;
    const outcome = await this.authenticator.authenticate(request).catch(() => undefined);
    // No outcome: the token could not be checked (identity provider down). The request still counts,
    // by address, and the auth guard answers it.
    if (outcome && 'caller' in outcome) return `user:${outcome.caller.userId}`;
    return `ip:${await super.getTracker(request)}`;
  }

  /** One quota per client across all routes; the throttler name keeps any further named limit apart. */
  protected override generateKey(_context: ExecutionContext, tracker: string, name: string): string {
    return `${name}:${tracker}`;
  }

  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, blockDuration, getTracker, generateKey } = request;
    const { req, res } = this.getRequestResponse(context);
    const name = throttler.name ?? 'default';
    const key = generateKey(context, await getTracker(req, context), name);

    let record: ThrottlerStorageRecord;
    try {
      record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    } catch (error: unknown) {
      // Fail open: an outage of the counter store must not take the API down with it; /ready reports it.
      this.warnStoreDown(error);
      return true;
    }

    const resetAt = isRateLimitRecord(record)
      ? record.resetAt
      : Math.ceil(Date.now() / 1000) + record.timeToExpire;
    const headers: Record<string, string> = {
      [RATE_LIMIT_HEADERS.limit]: String(limit),
      [RATE_LIMIT_HEADERS.remaining]: String(Math.max(0, limit - record.totalHits)),
      [RATE_LIMIT_HEADERS.reset]: String(resetAt),
    };
    if (record.isBlocked) {
      const retryAfter = Math.max(1, record.timeToBlockExpire);
      throw new AppException('RATE_LIMIT_EXCEEDED', {
        args: { retryAfter },
        headers: { ...headers, [RATE_LIMIT_HEADERS.retryAfter]: String(retryAfter) },
      });
    }
    void (res as unknown as FastifyReply).headers(headers);
    return true;
  }

  private warnStoreDown(error: unknown): void {
    const now = Date.now();
    if (now - this.lastStoreWarningAt < STORE_DOWN_WARNING_INTERVAL_MS) return;
    this.lastStoreWarningAt = now;
    const reason = error instanceof Error ? error.message : String(error);
    this.storeLogger.warn(`rate-limit counters unavailable, requests pass unlimited: ${reason}`);
  }
}
