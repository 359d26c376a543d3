import { Controller, Get, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult } from '@nestjs/terminus';
import { HealthChecks, Readiness } from './health-checks.service';

/** Operational endpoints: outside /api, unversioned, no token. */
@ApiExcludeController()
@Controller({ version: VERSION_NEUTRAL })
export class HealthController {
  constructor(private readonly checks: HealthChecks) {}

  @Get('health')
  @HealthCheck()
  liveness(): Promise<HealthCheckResult> {
    return this.checks.liveness();
  }

  @Get('ready')
  readiness(): Promise<Readiness> {
    return this.checks.readiness();
  }

  @Get('info')
  info(): Record<string, unknown> {
    return this.checks.info();
  }
}
