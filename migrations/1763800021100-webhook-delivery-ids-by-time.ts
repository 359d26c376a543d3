import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook delivery ids carry the millisecond they were made (UUID version 7: the first 48 bits are the Unix
 * time in milliseconds, the rest random as in version 4), so a delivery read by id alone finds the day
 * partition of the history its `created_at` names (docs/decisions/0154-webhook-delivery-queue.md). The ids
 * made before stay version 4; a read of one of those looks in every partition. Catalog only.
 */
export class WebhookDeliveryIdsByTime1763800021100 implements MigrationInterface {
  name = 'WebhookDeliveryIdsByTime1763800021100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION uuid_v7(at timestamptz) RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
        SELECT encode(set_byte(overlay(r PLACING substring(int8send(floor(extract(epoch FROM at) * 1000)::bigint) FROM 3)
                                       FROM 1 FOR 6),
                               6, (get_byte(r, 6) & 15) | 112), 'hex')::uuid
          FROM (SELECT uuid_send(gen_random_uuid()) AS r) random
      $$`);
    await queryRunner.query(
      'ALTER TABLE webhook_delivery_queue ALTER COLUMN delivery_id SET DEFAULT uuid_v7(clock_timestamp())',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE webhook_delivery_queue ALTER COLUMN delivery_id SET DEFAULT gen_random_uuid()',
    );
    await queryRunner.query('DROP FUNCTION uuid_v7(timestamptz)');
  }
}
