// The bare baseline of `npm run bench:orders` and `npm run bench:lists`: Fastify + pg, no framework, no auth,
// no mechanisms. Each answer is one SQL statement that builds the same JSON the service sends (the v1 order,
// nulls omitted; the offset page with its exact total), one transaction per create: the floor the service
// is measured against.
import Fastify from 'fastify';
import pg from 'pg';
import { CUSTOMER_PAGE, READ_ORDER } from './baseline-sql.mjs';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({ logger: false });

app.get('/api/v1/orders/:orderId', async (request, reply) => {
  const { rows } = await pool.query(READ_ORDER, [request.params.orderId]);
  if (rows.length === 0) return reply.code(404).send({ code: 'ORDER_NOT_FOUND' });
  return reply.type('application/json').send(rows[0].body);
});

app.get('/api/v1/orders', async (request, reply) => {
  const page = Number(request.query.page ?? 1);
  const size = Number(request.query.size ?? 20);
  const { rows } = await pool.query(CUSTOMER_PAGE, [request.query.customerId, size, (page - 1) * size, page]);
  return reply.type('application/json').send(rows[0].body);
});

app.post('/api/v1/orders', async (request, reply) => {
  const { customerId, items } = request.body;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const products = await client.query(
      'SELECT product_id, name, price FROM products WHERE product_id = ANY($1)',
      [items.map((i) => i.productId)],
    );
    const byId = new Map(products.rows.map((p) => [p.product_id, p]));
    const order = await client.query('INSERT INTO orders (customer_id) VALUES ($1) RETURNING order_id', [
      customerId,
    ]);
    const orderId = order.rows[0].order_id;
    const values = [];
    const params = [];
    items.forEach((item, index) => {
      const p = byId.get(item.productId);
      params.push(orderId, item.productId, p.name, p.price, item.quantity);
      const b = index * 5;
      values.push(`($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5})`);
    });
    await client.query(
      `INSERT INTO order_items (order_id, product_id, product_name, unit_price, quantity) VALUES ${values.join(', ')}`,
      params,
    );
    await client.query(
      'UPDATE orders SET total_amount = (SELECT sum(unit_price * quantity) FROM order_items WHERE order_id = $1) WHERE order_id = $1',
      [orderId],
    );
    const { rows } = await client.query(READ_ORDER, [orderId]);
    await client.query('COMMIT');
    return reply
      .code(201)
      .header('location', `/api/v1/orders/${orderId}`)
      .type('application/json')
      .send(rows[0].body);
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
});

await app.listen({ port: Number(process.env.PORT ?? 3100), host: '127.0.0.1' });
