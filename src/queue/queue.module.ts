import {
  BeforeApplicationShutdown,
  Global,
  Inject,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { BullMqJobQueue } from './bullmq-job-queue';
import { InProcessJobQueue } from './in-process-job-queue';
import { JobQueue } from './job-queue';

type Adapter = BullMqJobQueue | InProcessJobQueue;

@Global()
@Module({
  providers: [
    {
      provide: JobQueue,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): JobQueue => {
        const runsWorkers = config.app.role !== 'api';
        return config.redis.url
          ? new BullMqJobQueue(config.redis.url, `${config.redis.keyPrefix}:bull`, runsWorkers, config.queue)
          : new InProcessJobQueue(runsWorkers);
      },
    },
  ],
  exports: [JobQueue],
})
export class QueueModule implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(@Inject(JobQueue) private readonly queue: JobQueue) {}

  /** Processors register in onModuleInit; workers start once every module is ready. */
  onApplicationBootstrap(): void {
    (this.queue as Adapter).start();
  }

  /** Stop taking jobs before the HTTP server and the database close. */
  async beforeApplicationShutdown(): Promise<void> {
    const adapter = this.queue as Adapter;
    if (adapter instanceof BullMqJobQueue) await adapter.closeWorkers();
    else await adapter.close();
  }

  async onApplicationShutdown(): Promise<void> {
    await (this.queue as Adapter).close();
  }
}
