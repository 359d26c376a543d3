import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the order list queries need:
 * - `search_text`: note, tracking number and item product names, lower-cased, maintained by triggers and
 *   indexed with pg_trgm, so `q` (a substring match) uses an index;
 * - indexes for the status filter and each sort key with `order_id` as tie-breaker (keyset paging);
 * - `order_status_counts`: exact counts per status kept by statement triggers in sharded rows (one per
 *   backend slot, so concurrent writers do not queue on one counter row), so counting all orders or orders
 *   of some statuses never scans the table.
 */
export class OrderSearch1763800003000 implements MigrationInterface {
  name = 'OrderSearch1763800003000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE orders ADD COLUMN search_text text NOT NULL DEFAULT ''`);
    await queryRunner.query(`
      CREATE FUNCTION order_search_text(p_order_id uuid, p_note text, p_tracking text) RETURNS text
      LANGUAGE sql STABLE AS $$
        SELECT lower(concat_ws(' ', p_note, p_tracking,
          (SELECT string_agg(product_name, ' ' ORDER BY product_name) FROM order_items WHERE order_id = p_order_id)))
      $$`);
    await queryRunner.query(`
      CREATE FUNCTION orders_search_text_row() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.search_text := order_search_text(NEW.order_id, NEW.note, NEW.tracking_number);
        RETURN NEW;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER orders_search_text BEFORE INSERT OR UPDATE OF note, tracking_number ON orders
      FOR EACH ROW EXECUTE FUNCTION orders_search_text_row()`);
    await queryRunner.query(`
      CREATE FUNCTION order_items_search_text_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE orders o SET search_text = order_search_text(o.order_id, o.note, o.tracking_number)
        WHERE o.order_id IN (SELECT order_id FROM changed_items);
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER order_items_search_text_ins AFTER INSERT ON order_items
      REFERENCING NEW TABLE AS changed_items FOR EACH STATEMENT EXECUTE FUNCTION order_items_search_text_stmt()`);
    await queryRunner.query(`
      CREATE TRIGGER order_items_search_text_del AFTER DELETE ON order_items
      REFERENCING OLD TABLE AS changed_items FOR EACH STATEMENT EXECUTE FUNCTION order_items_search_text_stmt()`);
    await queryRunner.query(`
      CREATE TRIGGER order_items_search_text_upd AFTER UPDATE ON order_items
      REFERENCING NEW TABLE AS changed_items FOR EACH STATEMENT EXECUTE FUNCTION order_items_search_text_stmt()`);
    await queryRunner.query(
      'CREATE INDEX orders_search_text_trgm_idx ON orders USING gin (search_text gin_trgm_ops)',
    );

    await queryRunner.query(
      'CREATE INDEX orders_status_created_idx ON orders (status, created_at DESC, order_id DESC)',
    );
    await queryRunner.query(
      'CREATE INDEX orders_total_amount_idx ON orders (total_amount DESC, order_id DESC)',
    );
    await queryRunner.query(
      'CREATE INDEX orders_updated_idx ON orders ((COALESCE(updated_at, created_at)) DESC, order_id DESC)',
    );
    await queryRunner.query('CREATE INDEX orders_status_id_idx ON orders (status, order_id DESC)');
    await queryRunner.query('CREATE INDEX users_region_segment_idx ON users (region_id, segment)');

    await queryRunner.query(`
      CREATE TABLE order_status_counts (
        status text NOT NULL,
        shard smallint NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (status, shard)
      )`);
    await queryRunner.query(`
      CREATE FUNCTION order_status_counts_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        slot smallint := pg_backend_pid() % 16;
      BEGIN
        INSERT INTO order_status_counts (status, shard, n)
        SELECT status, slot, sum(delta) FROM (
          SELECT status, 1 AS delta FROM new_orders
          UNION ALL
          SELECT status, -1 AS delta FROM old_orders
        ) d GROUP BY status HAVING sum(delta) <> 0
        ON CONFLICT (status, shard) DO UPDATE SET n = order_status_counts.n + EXCLUDED.n;
        RETURN NULL;
      END $$`);
    // INSERT and DELETE statements have only one transition table, so they get functions of their own.
    await queryRunner.query(`
      CREATE FUNCTION order_status_counts_ins() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO order_status_counts (status, shard, n)
        SELECT status, pg_backend_pid() % 16, count(*) FROM new_orders GROUP BY status
        ON CONFLICT (status, shard) DO UPDATE SET n = order_status_counts.n + EXCLUDED.n;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION order_status_counts_del() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO order_status_counts (status, shard, n)
        SELECT status, pg_backend_pid() % 16, -count(*) FROM old_orders GROUP BY status
        ON CONFLICT (status, shard) DO UPDATE SET n = order_status_counts.n + EXCLUDED.n;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER orders_status_counts_ins AFTER INSERT ON orders
      REFERENCING NEW TABLE AS new_orders FOR EACH STATEMENT EXECUTE FUNCTION order_status_counts_ins()`);
    await queryRunner.query(`
      CREATE TRIGGER orders_status_counts_del AFTER DELETE ON orders
      REFERENCING OLD TABLE AS old_orders FOR EACH STATEMENT EXECUTE FUNCTION order_status_counts_del()`);
    await queryRunner.query(`
      CREATE TRIGGER orders_status_counts_upd AFTER UPDATE ON orders
      REFERENCING OLD TABLE AS old_orders NEW TABLE AS new_orders
      FOR EACH STATEMENT EXECUTE FUNCTION order_status_counts_stmt()`);
    await queryRunner.query(`
      INSERT INTO order_status_counts (status, shard, n) SELECT status, 0, count(*) FROM orders GROUP BY status`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER orders_status_counts_upd ON orders');
    await queryRunner.query('DROP TRIGGER orders_status_counts_del ON orders');
    await queryRunner.query('DROP TRIGGER orders_status_counts_ins ON orders');
    await queryRunner.query(
      'DROP FUNCTION order_status_counts_stmt, order_status_counts_ins, order_status_counts_del',
    );
    await queryRunner.query('DROP TABLE order_status_counts');
    await queryRunner.query('DROP INDEX users_region_segment_idx');
    await queryRunner.query('DROP INDEX orders_status_id_idx');
    await queryRunner.query('DROP INDEX orders_updated_idx');
    await queryRunner.query('DROP INDEX orders_total_amount_idx');
    await queryRunner.query('DROP INDEX orders_status_created_idx');
    await queryRunner.query('DROP TRIGGER order_items_search_text_upd ON order_items');
    await queryRunner.query('DROP TRIGGER order_items_search_text_del ON order_items');
    await queryRunner.query('DROP TRIGGER order_items_search_text_ins ON order_items');
    await queryRunner.query('DROP TRIGGER orders_search_text ON orders');
    await queryRunner.query(
      'DROP FUNCTION order_items_search_text_stmt, orders_search_text_row, order_search_text',
    );
    await queryRunner.query('ALTER TABLE orders DROP COLUMN search_text');
  }
}
