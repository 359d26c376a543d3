import { Injectable, Module } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import type { StoredEvent } from '../src/modules/events/domain/event';
import { type EventSubscriber, EventSubscription } from '../src/modules/events/event-subscriber';
import { EventSubscribers, SUBSCRIBER_BACKOFF } from '../src/modules/events/event-subscribers.service';
import { adminClient, customerClient } from './support/callers';
import { ApiClient, MERGE_PATCH } from './support/http-client';
import { createOrder } from './support/orders';
import { bootTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { createEndpoint, deliveriesOf, recordEvent, WEBHOOK_ENDPOINTS } from './support/webhooks';
import { until } from './support/wait';

/**
 * Event subscribers in an `all`-role app: a probe subscriber (mounted for this file) gets every event in
 * `sequence` order, in batches, from its position on; a failing batch is handed again after a growing
 * backoff, and its lag shows in /metrics. The webhook fan-out, the first subscriber, runs after the events'
 * commits and still sends each event only to the endpoints enabled and subscribed at its `sequence`.
 */
const handled: StoredEvent[][] = [];
let refusing = false;

@EventSubscription({ name: 'test-probe', batchSize: 3 })
@Injectable()
class ProbeSubscriber implements EventSubscriber {
  async handle(events: readonly StoredEvent[]): Promise<void> {
    if (refusing) throw new Error('probe refused the batch');
    handled.push([...events]);
  }
}

@Module({ providers: [ProbeSubscriber] })
class ProbeModule {}

interface SubscriberRow {
  position: string;
  attempts: number;
  next_attempt_at: Date | null;
  updated_at: Date;
  last_error: string | null;
}

describe('event subscribers', () => {
  let t: TestApp;
  let admin: ApiClient;
  let direct: pg.Pool;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await bootTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, [ProbeModule]);
    admin = await adminClient(t);
    direct = new pg.Pool({ connectionString: process.env.E2E_DIRECT_DATABASE_URL, max: 3 });
  });
  afterAll(async () => {
    await t.app.get(DataSource).query('DELETE FROM webhook_endpoints');
    await t.close();
    await direct.end();
    for (const receiver of receivers) await receiver.close();
  });

  const subscriber = async (name: string): Promise<SubscriberRow> =>
    (await direct.query('SELECT * FROM event_subscribers WHERE name = $1', [name])).rows[0] as SubscriberRow;
  const sequenceOf = async (eventId: string): Promise<number> =>
    Number(
      (await direct.query('SELECT sequence FROM events WHERE event_id = $1', [eventId])).rows[0].sequence,
    );
  const probeSaw = () => handled.flat().map((event) => event.sequence);
  const lagMetric = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    return Number(/^event_subscriber_lag_seconds\{subscriber="test-probe"\} (\S+)$/m.exec(res.body)?.[1]);
  };

  it('a subscriber gets every event once, in sequence order, in batches, although commits came out of order', async () => {
    const customer = await customerClient(t);
    const start = Number((await subscriber('test-probe')).position);
    const orders = await Promise.all(Array.from({ length: 10 }, () => createOrder(customer)));
    const table = (
      await direct.query(
        `SELECT sequence::int AS sequence FROM events
          WHERE order_id = ANY ($1) AND type = 'ORDER_CREATED' ORDER BY sequence`,
        [orders.map((o) => o.orderId)],
      )
    ).rows.map((row: { sequence: number }) => row.sequence);
    await until('the probe to handle the orders', () => table.every((s) => probeSaw().includes(s)));
    const seen = probeSaw().filter((s) => s > start);
    expect(seen).toEqual([...new Set(seen)].sort((a, b) => a - b));
    expect(seen).toEqual(expect.arrayContaining(table));
    expect(handled.every((batch) => batch.length >= 1 && batch.length <= 3)).toBe(true);
    // The position commits with the batch the probe has just seen: it follows.
    await until(
      'the position to pass the orders',
      async () => Number((await subscriber('test-probe')).position) >= table[table.length - 1],
    );
  });

  it('a failed batch is handed again after a backoff that doubles, from the kept position; its lag shows meanwhile', async () => {
    refusing = true;
    const before = Number((await subscriber('test-probe')).position);
    const eventId = await recordEvent(t, 'ORDER_CONFIRMED');
    const sequence = await sequenceOf(eventId);
    const failures: SubscriberRow[] = [];
    for (const attempts of [1, 2]) {
      failures.push(
        await (async () => {
          await until(
            `failure ${attempts}`,
            async () => (await subscriber('test-probe')).attempts >= attempts,
          );
          return subscriber('test-probe');
        })(),
      );
    }
    const waited = failures.map((row) => row.next_attempt_at!.getTime() - row.updated_at.getTime());
    expect(waited[0]).toBeGreaterThanOrEqual(SUBSCRIBER_BACKOFF.firstMs - 5);
    expect(waited[1]).toBeGreaterThanOrEqual(2 * SUBSCRIBER_BACKOFF.firstMs - 5);
    expect(failures[1]).toMatchObject({ last_error: 'probe refused the batch', position: String(before) });
    expect(probeSaw()).not.toContain(sequence);
    expect(await lagMetric()).toBeGreaterThan(0);

    refusing = false;
    await until('the batch to be handled', () => probeSaw().includes(sequence));
    await until(
      'the position to pass it',
      async () => Number((await subscriber('test-probe')).position) >= sequence,
    );
    expect(await subscriber('test-probe')).toMatchObject({
      attempts: 0,
      last_error: null,
      next_attempt_at: null,
    });
    expect(probeSaw().filter((s) => s === sequence)).toHaveLength(1);
    expect(await lagMetric()).toBe(0);
  });

  it('fan-out after the commit still sends each event only to the endpoints enabled and subscribed at its sequence', async () => {
    const receiver = await WebhookReceiver.start({});
    receivers.push(receiver);
    const deleted = await createEndpoint(admin, { url: receiver.url('/deleted') });
    // The fan-out is held (its row locked) while events and endpoint changes commit; it runs after all.
    const hold = await direct.connect();
    await hold.query('BEGIN');
    await hold.query("SELECT 1 FROM event_subscribers WHERE name = 'webhook-fan-out' FOR UPDATE");
    const beforeCreate = await recordEvent(t, 'ORDER_SHIPPED');
    const endpoint = await createEndpoint(admin, { url: receiver.url('/followed') });
    const id = endpoint.webhookEndpointId;
    const whileEnabled = await recordEvent(t, 'ORDER_SHIPPED');
    expect((await admin('POST', `${WEBHOOK_ENDPOINTS}/${id}/disable`)).statusCode).toBe(200);
    const whileDisabled = await recordEvent(t, 'ORDER_SHIPPED');
    expect((await admin('POST', `${WEBHOOK_ENDPOINTS}/${id}/enable`)).statusCode).toBe(200);
    const enabledAgain = await recordEvent(t, 'ORDER_SHIPPED');
    const patched = await admin('PATCH', `${WEBHOOK_ENDPOINTS}/${id}`, {
      body: { eventTypes: ['TASK_FAILED'] },
      contentType: MERGE_PATCH,
    });
    expect(patched.statusCode).toBe(200);
    const notSubscribed = await recordEvent(t, 'ORDER_SHIPPED');
    const subscribed = await recordEvent(t, 'TASK_FAILED');
    const later = await createEndpoint(admin, { url: receiver.url('/later') });
    expect((await admin('DELETE', `${WEBHOOK_ENDPOINTS}/${deleted.webhookEndpointId}`)).statusCode).toBe(204);
    const last = await sequenceOf(subscribed);
    expect(Number((await subscriber('webhook-fan-out')).position)).toBeLessThan(
      await sequenceOf(beforeCreate),
    );
    await hold.query('COMMIT');
    hold.release();
    t.app.get(EventSubscribers).wake();

    await until('the fan-out to pass the events', async () => {
      return Number((await subscriber('webhook-fan-out')).position) >= last;
    });
    const delivered = (await deliveriesOf(admin, `webhookEndpointId=${id}`)).map((d) => d.eventId);
    expect(delivered.sort()).toEqual([whileEnabled, enabledAgain, subscribed].sort());
    for (const none of [beforeCreate, whileDisabled, notSubscribed]) expect(delivered).not.toContain(none);
    expect(await deliveriesOf(admin, `webhookEndpointId=${later.webhookEndpointId}`)).toEqual([]);
    expect((await subscriber('webhook-fan-out')).attempts).toBe(0);
    await until('the deliveries to arrive', () => receiver.requests.length >= 3);

    // Once the fan-out is past an endpoint's later changes (it had four), the earlier ones are gone: only
    // the last remains.
    const changesOf = async (endpointId: string) =>
      Number(
        (
          await direct.query(
            'SELECT count(*)::int AS n FROM webhook_endpoint_changes WHERE webhook_endpoint_id = $1',
            [endpointId],
          )
        ).rows[0].n,
      );
    const afterwardId = await recordEvent(t, 'TASK_FAILED');
    const afterward = await sequenceOf(afterwardId);
    t.app.get(EventSubscribers).wake();
    await until('the fan-out to pass the next event', async () => {
      return Number((await subscriber('webhook-fan-out')).position) >= afterward;
    });
    expect(await changesOf(id)).toBe(1);
    // The state the kept change records still decides: the endpoint gets the type it is subscribed to.
    expect((await deliveriesOf(admin, `webhookEndpointId=${id}`)).map((d) => d.eventId)).toContain(
      afterwardId,
    );
  });
});
