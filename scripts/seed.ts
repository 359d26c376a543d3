import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { loadConfigOrExit, resolveDatabase } from '../src/bootstrap/runtime';
import { databaseOptions } from '../src/platform/database/database-options';
import { runMigrationsLocked } from '../src/platform/database/migrations-runner';
import { exitWithError } from '../src/platform/logging/app-logger';

/**
 * Development seed (`npm run seed`): a catalogue, a demo customer and a few orders. Idempotent: fixed ids
 * and ON CONFLICT DO NOTHING, so running it again changes nothing. Uses DATABASE_URL, or the embedded
 * PostgreSQL `npm start` runs (found by the state file beside its data), or starts it for the run.
 */
export const DEMO_CUSTOMER_ID = '00000000-0000-4000-8000-00000000c001';

const PRODUCTS: Array<[string, string, string, number, 'ACTIVE' | 'DISCONTINUED']> = [
  ['00000000-0000-4000-8000-0000000000a1', 'Electric kettle', '2490.00', 120, 'ACTIVE'],
  ['00000000-0000-4000-8000-0000000000a2', 'Ceramic mug', '390.50', 500, 'ACTIVE'],
  ['00000000-0000-4000-8000-0000000000a3', 'French press', '1890.00', 60, 'ACTIVE'],
  ['00000000-0000-4000-8000-0000000000a4', 'Coffee beans 1 kg', '1650.00', 200, 'ACTIVE'],
  ['00000000-0000-4000-8000-0000000000a5', 'Milk frother', '990.00', 0, 'ACTIVE'],
  ['00000000-0000-4000-8000-0000000000a6', 'Stovetop espresso maker', '2150.00', 15, 'DISCONTINUED'],
];

const ORDERS: Array<{ id: string; note: string; lines: Array<[string, string, number]> }> = [
  {
    id: '00000000-0000-4000-8000-0000000000b1',
    note: 'Leave at the door',
    lines: [
      ['00000000-0000-4000-8000-0000000000d1', '00000000-0000-4000-8000-0000000000a1', 1],
      ['00000000-0000-4000-8000-0000000000d2', '00000000-0000-4000-8000-0000000000a2', 2],
    ],
  },
  {
    id: '00000000-0000-4000-8000-0000000000b2',
    note: 'Gift wrap, please',
    lines: [['00000000-0000-4000-8000-0000000000d3', '00000000-0000-4000-8000-0000000000a3', 1]],
  },
];

/** What one run inserted (rows already there are left as they are). */
export interface Seeded {
  products: number;
  customers: number;
  orders: number;
}

export async function seed(dataSource: DataSource): Promise<Seeded> {
  return dataSource.transaction(async (manager) => {
    const seeded: Seeded = { products: 0, customers: 0, orders: 0 };
    for (const [id, name, price, stock, status] of PRODUCTS) {
      const rows = (await manager.query(
        `INSERT INTO products (product_id, name, price, stock, status) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING RETURNING product_id`,
        [id, name, price, stock, status],
      )) as unknown[];
      seeded.products += rows.length;
    }
    const customers = (await manager.query(
      `INSERT INTO users (user_id, roles, display_name, region_id, segment) VALUES ($1, '{CUSTOMER}', 'Demo Customer', 77, 'RETAIL')
       ON CONFLICT DO NOTHING RETURNING user_id`,
      [DEMO_CUSTOMER_ID],
    )) as unknown[];
    seeded.customers += customers.length;
    for (const order of ORDERS) {
      const inserted = await manager.query(
        `INSERT INTO orders (order_id, customer_id, note, delivery_street_name, delivery_zip_code)
         VALUES ($1, $2, $3, 'Tverskaya 1', '125009') ON CONFLICT DO NOTHING RETURNING order_id`,
        [order.id, DEMO_CUSTOMER_ID, order.note],
      );
      if ((inserted as unknown[]).length === 0) continue;
      seeded.orders += 1;
      for (const [itemId, productId, quantity] of order.lines) {
        await manager.query(
          `INSERT INTO order_items (item_id, order_id, product_id, product_name, unit_price, quantity)
           SELECT $1, $2, product_id, name, price, $4 FROM products WHERE product_id = $3`,
          [itemId, order.id, productId, quantity],
        );
      }
      await manager.query(
        `UPDATE orders SET total_amount = (SELECT sum(unit_price * quantity) FROM order_items WHERE order_id = $1)
         WHERE order_id = $1`,
        [order.id],
      );
    }
    return seeded;
  });
}

async function main(): Promise<void> {
  const { config, embedded } = await resolveDatabase(loadConfigOrExit(), { attach: true });
  const logger = new Logger('Seed');
  if (embedded) logger.log(embedded.description);
  const dataSource = await new DataSource(databaseOptions(config.database.url as string)).initialize();
  try {
    await runMigrationsLocked(dataSource);
    const seeded = await seed(dataSource);
    logger.log(
      seeded.products + seeded.customers + seeded.orders === 0
        ? 'nothing to seed: the demo data is already there'
        : `seeded ${seeded.products} products, ${seeded.customers} customer and ${seeded.orders} orders ` +
            `(customer ${DEMO_CUSTOMER_ID})`,
    );
    logger.log(`token for the demo customer: npm run token -- --sub ${DEMO_CUSTOMER_ID} --role CUSTOMER`);
  } finally {
    await dataSource.destroy();
    await embedded?.stop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    exitWithError(`seed failed: ${error instanceof Error ? error.message : String(error)}`, error);
  });
}
