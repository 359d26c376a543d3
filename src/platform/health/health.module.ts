import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthChecks } from './health-checks.service';
import { HealthController } from './health.controller';
import { RedisHealthIndicator } from './redis.health';
import { ShutdownState } from './shutdown-state';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [RedisHealthIndicator, ShutdownState, HealthChecks],
  exports: [ShutdownState, HealthChecks],
})
export class HealthModule {}
