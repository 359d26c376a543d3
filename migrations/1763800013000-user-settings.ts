import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * User settings (docs/decisions/0049-user-settings-table.md): one row per user
 * who saved them; a user without a row has the defaults and no stored language (localized text then falls
 * back to `ru`).
 */
export class UserSettings1763800013000 implements MigrationInterface {
  name = 'UserSettings1763800013000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE user_settings (
        user_id uuid PRIMARY KEY REFERENCES users (user_id) ON DELETE CASCADE,
        language text NOT NULL CHECK (language IN ('ru', 'en')),
        notifications_enabled boolean NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE user_settings');
  }
}
