import { Inject, Injectable } from '@nestjs/common';
import { HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ReplicaSet } from '../database/replicas';
import { SessionLimits } from '../database/session-limits';
import { AppException } from '../problem/app-exception';
import { JobQueue } from '../queue/job-queue';
import { RedisHealthIndicator } from './redis.health';
import { ShutdownState } from './shutdown-state';

/** One check of readiness: `up`, `down` or `not configured`, and what else it says. */
export interface Check {
  status: string;
  [detail: string]: unknown;
}

/** The body of a 200 from /ready. */
export interface Readiness {
  status: 'ok';
  info: Record<string, Check>;
  error: Record<string, Check>;
  details: Record<string, Check>;
}

/**
 * Liveness, readiness and service metadata, for the HTTP application's operational endpoints and for the
 * worker's small operational server alike.
 */
@Injectable()
export class HealthChecks {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly shutdown: ShutdownState,
    private readonly queue: JobQueue,
    private readonly sessionLimits: SessionLimits,
    private readonly replicas: ReplicaSet,
  ) {}

  /** Liveness: 200 while the process can serve; dependencies do not matter here. */
  liveness(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /**
   * Readiness: 503 SERVICE_UNAVAILABLE only when this process cannot serve: PostgreSQL does not answer, or
   * it is shutting down. Redis is reported, never a reason to refuse traffic: while it is down the API still
   * serves (rate limits fail open, idempotency keys and tasks live in PostgreSQL; tasks accepted meanwhile
   * are queued when it is back), so the pods stay in the Service. Read replicas are reported, never a reason
   * either: the primary serves what they cannot. The body names every check: `info` those up, `error` those
   * down, `details` all.
   */
  async readiness(): Promise<Readiness> {
    if (this.shutdown.isShuttingDown) {
      throw new AppException('SERVICE_UNAVAILABLE', {
        extensions: { checks: { shutdown: { status: 'down', message: 'shutting down' } } },
      });
    }
    const [database, redis] = await Promise.all([
      this.database.pingCheck('database', { timeout: 1_500 }),
      this.config.redis.server !== undefined
        ? this.redis.check('redis')
        : // Without Redis nothing is up or down: say so (in-process queue, in-memory counters).
          { redis: { status: 'not configured', mode: 'in-process queue, in-memory counters' } },
    ]);
    const details: Record<string, Check> = {
      database: { ...database.database, mode: this.config.database.embedded ? 'embedded' : 'external' },
      redis: redis.redis,
      // Jobs go through Redis when it is configured: the queue is down with it.
      queue: {
        status: this.queue.backend === 'bullmq' ? redis.redis.status : 'up',
        backend: this.queue.backend,
      },
      replicas: this.replicaCheck(),
    };
    if (details.database.status !== 'up') {
      throw new AppException('SERVICE_UNAVAILABLE', { extensions: { checks: details } });
    }
    const entries = Object.entries(details);
    return {
      status: 'ok',
      info: Object.fromEntries(entries.filter(([, check]) => check.status !== 'down')),
      error: Object.fromEntries(entries.filter(([, check]) => check.status === 'down')),
      details,
    };
  }

  /**
   * `up` while a replica serves, `down` while none can (the primary serves their reads), each replica's
   * state as last sampled (`up`, `lagging`, `down`, its lag and why).
   */
  private replicaCheck(): Check {
    if (!this.replicas.enabled) {
      return { status: 'not configured', mode: 'every read on the primary' };
    }
    const replicas = this.replicas.state();
    return {
      status: replicas.some((replica) => replica.status === 'up') ? 'up' : 'down',
      maxLagMs: this.replicas.maxLagMs,
      replicas: replicas.map(({ name, status, lagMs, reason }) => ({
        name,
        status,
        lagMs,
        ...(reason ? { reason } : {}),
      })),
    };
  }

  /** What runs here; `sessionLimits`: the limits the database sessions actually have, read at start. */
  info(): Record<string, unknown> {
    const { app, database } = this.config;
    const info: Record<string, unknown> = {
      name: app.name,
      version: app.version,
      environment: app.env,
      role: app.role,
      database: database.embedded ? 'embedded' : 'external',
      queue: this.queue.backend,
    };
    if (app.commit) info.commit = app.commit;
    info.sessionLimits = this.sessionLimits.effective;
    return info;
  }
}
