import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { IdempotencyStore } from './idempotency.store';

/** How often each API process purges expired keys; a key lives `IDEMPOTENCY_TTL_SECONDS` (24 h). */
export const PURGE_INTERVAL_MS = 10 * 60_000;

/**
 * Deletes expired idempotency keys periodically in every API process. Safe with any number of replicas:
 * the purge is a plain delete of expired rows (SKIP LOCKED batches), and an expired row that is still
 * there is ignored anyway. The timer never keeps the process alive and stops before the database closes.
 */
@Injectable()
export class IdempotencyCleanup implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Idempotency');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly store: IdempotencyStore) {}

  /** The module belongs to the HTTP application only (AppModule.forHttp), so workers run no purge. */
  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.purge(), PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  /** One purge at a time per process; failures are logged and retried on the next tick. */
  purge(): Promise<void> {
    this.running ??= this.store
      .purgeExpired()
      .then((deleted) => {
        if (deleted > 0) this.logger.log(`purged ${deleted} expired idempotency keys`);
      })
      .catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.warn(`purging expired idempotency keys failed: ${reason}`);
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Before the application shuts down (and TypeORM closes its pool): stop the timer, let a purge finish. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
