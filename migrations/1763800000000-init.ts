import { MigrationInterface, QueryRunner } from 'typeorm';

/** Base schema: pg_trgm backs the free-text search over orders. Domain tables arrive with their modules. */
export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP EXTENSION IF EXISTS pg_trgm');
  }
}
