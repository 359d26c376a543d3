import { Get, Module, Query } from '@nestjs/common';
import { Sql } from '../../../src/platform/database/sql';
import { read } from '../../../src/platform/database/sql-statement';
import { VersionedController } from '../../../src/platform/versioning/api-version';

export const HARDENING_PROBE_PATH = '/api/v1/hardening-probe';

const SLEEP = read('SELECT pg_sleep($1::int / 1000.0)');

/** Test-only routes that make the database fail the ways production can: slow, or not there. */
@VersionedController('hardening-probe', 1)
class HardeningProbeController {
  constructor(private readonly sql: Sql) {}

  /** A statement that runs `ms` milliseconds: past the statement timeout, PostgreSQL cancels it. */
  @Get('sleep')
  async sleep(@Query('ms') ms: string): Promise<{ slept: number }> {
    await this.sql.rows(SLEEP, [Number(ms)]);
    return { slept: Number(ms) };
  }

  /** The error pg raises when the server refuses connections (it is down or restarting). */
  @Get('unreachable')
  unreachable(): never {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  }
}

@Module({ controllers: [HardeningProbeController] })
export class HardeningProbeModule {}
