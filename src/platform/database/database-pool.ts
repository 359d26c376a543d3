import { Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * TypeORM's `pg` pool (the driver's public `master`): the service's statements run on it directly, one
 * connection per statement or per transaction, without a TypeORM query runner around each.
 */
@Injectable()
export class DatabasePool {
  readonly pool: Pool;

  constructor(dataSource: DataSource) {
    this.pool = (dataSource.driver as PostgresDriver).master as Pool;
  }
}
