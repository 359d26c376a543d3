import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/**
 * Readiness turns 503 the moment shutdown begins; the optional delay lets the load balancer see it
 * before the HTTP server stops accepting connections (Kubernetes endpoints propagate with a lag).
 */
@Injectable()
export class ShutdownState implements BeforeApplicationShutdown {
  private shuttingDown = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.shuttingDown = true;
    const delay = this.config.app.shutdownDelayMs;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
