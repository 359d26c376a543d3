import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What fair delivery needs (docs/decisions/0149-fair-webhook-delivery.md): whether an endpoint's last attempt
 * succeeded, which decides how many of its deliveries may be in flight (one while it is unproven or failing),
 * and an index of the leased deliveries, so counting an endpoint's in-flight deliveries does not read its
 * whole backlog.
 */
export class WebhookDeliveryFairness1763800017200 implements MigrationInterface {
  name = 'WebhookDeliveryFairness1763800017200';

  async up(queryRunner: QueryRunner): Promise<void> {
    // NULL: no attempt recorded yet.
    await queryRunner.query('ALTER TABLE webhook_endpoints ADD COLUMN last_attempt_succeeded boolean');
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (webhook_endpoint_id, claimed_until)
       WHERE status = 'PENDING' AND claimed_until IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX webhook_deliveries_leased_idx');
    await queryRunner.query('ALTER TABLE webhook_endpoints DROP COLUMN last_attempt_succeeded');
  }
}
