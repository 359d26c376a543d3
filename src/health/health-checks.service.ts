import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { AppException } from '../problem/app-exception';
import { JobQueue } from '../queue/job-queue';
import { RedisHealthIndicator } from './redis.health';
import { ShutdownState } from './shutdown-state';

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
  ) {}

  /** Liveness: 200 while the process can serve; dependencies do not matter here. */
  liveness(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /**
   * Readiness: PostgreSQL and Redis answer, and the process is not shutting down; otherwise 503
   * SERVICE_UNAVAILABLE naming the failing checks.
   */
  async readiness(): Promise<HealthCheckResult> {
    if (this.shutdown.isShuttingDown) {
      throw new AppException('SERVICE_UNAVAILABLE', {
        extensions: { checks: { shutdown: { status: 'down', message: 'shutting down' } } },
      });
    }
    const redisConfigured = this.config.redis.url !== undefined;
    try {
      const result = await this.health.check([
        async () => {
          const r = await this.database.pingCheck('database', { timeout: 1_500 });
          r.database = { ...r.database, mode: this.config.database.embedded ? 'embedded' : 'external' };
          return r;
        },
        ...(redisConfigured ? [() => this.redis.check('redis')] : []),
        async () => ({ queue: { status: 'up' as const, backend: this.queue.backend } }),
      ]);
      // Without REDIS_URL nothing is up or down: say so (in-process queue, in-memory counters).
      if (!redisConfigured) {
        const redis = { status: 'not configured', mode: 'in-process queue, in-memory counters' };
        return {
          ...result,
          info: { ...result.info, redis },
          details: { ...result.details, redis },
        } as HealthCheckResult;
      }
      return result;
    } catch (error) {
      if (error instanceof ServiceUnavailableException) {
        const result = error.getResponse() as HealthCheckResult;
        throw new AppException('SERVICE_UNAVAILABLE', { extensions: { checks: result.details } });
      }
      throw error;
    }
  }

  info(): Record<string, string> {
    const { app, database } = this.config;
    const info: Record<string, string> = {
      name: app.name,
      version: app.version,
      environment: app.env,
      role: app.role,
      database: database.embedded ? 'embedded' : 'external',
      queue: this.queue.backend,
    };
    if (app.commit) info.commit = app.commit;
    return info;
  }
}
