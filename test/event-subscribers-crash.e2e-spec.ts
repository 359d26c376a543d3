import pg from 'pg';
import { DataSource } from 'typeorm';
import { adminClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { describeIf } from './support/skip-unless';
import { bootTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { until } from './support/wait';
import { createEndpoint, deliveriesOf, recordEvent } from './support/webhooks';
import { killWorker, startWorker, WorkerProcess } from './support/worker-process';

/**
 * A subscriber whose worker dies in the middle of a batch resumes from its kept position. An `api`-role app
 * records the event; a `worker`-role process runs the webhook fan-out, which this test holds inside its batch
 * (a lock on the deliveries table) and then kills (SIGKILL). The batch never commits: no delivery, the
 * position unmoved; the next worker hands the same events again and the delivery is made, once.
 */
describeIf(process.env.REDIS_URL, 'needs REDIS_URL (an api-role app and a worker process)')(
  'an event subscriber after a crash',
  () => {
    let t: TestApp;
    let admin: ApiClient;
    let direct: pg.Pool;
    let receiver: WebhookReceiver;
    const workers: WorkerProcess[] = [];
    const workerEnv = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };

    beforeAll(async () => {
      t = await bootTestApp({ APP_ROLE: 'api', ...workerEnv });
      admin = await adminClient(t);
      direct = new pg.Pool({ connectionString: process.env.E2E_DIRECT_DATABASE_URL, max: 3 });
      receiver = await WebhookReceiver.start({});
    });
    afterAll(async () => {
      for (const worker of workers) await killWorker(worker);
      await t.app.get(DataSource).query('DELETE FROM webhook_endpoints');
      await t.close();
      await direct.end();
      await receiver.close();
    });

    const position = async () =>
      Number(
        (await direct.query("SELECT position FROM event_subscribers WHERE name = 'webhook-fan-out'")).rows[0]
          .position,
      );

    it('a worker killed mid-batch: the next one handles the batch again from the kept position', async () => {
      const endpoint = await createEndpoint(admin, { url: receiver.url('/crash') });
      const hold = await direct.connect();
      await hold.query('BEGIN');
      await hold.query('LOCK TABLE webhook_delivery_queue IN SHARE MODE');
      const first = await startWorker(workerEnv);
      workers.push(first);
      const eventId = await recordEvent(t, 'ORDER_DELIVERED');
      const sequence = Number(
        (await direct.query('SELECT sequence FROM events WHERE event_id = $1', [eventId])).rows[0].sequence,
      );
      // The worker's batch waits on the lock, inside its transaction.
      await until('the fan-out to wait inside its batch', async () => {
        const waiting = await direct.query(
          `SELECT 1 FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
              AND query LIKE '%INSERT INTO webhook_delivery_queue%'`,
        );
        return waiting.rowCount === 1;
      });
      await killWorker(first);
      await hold.query('COMMIT');
      hold.release();
      // The dead worker's transaction is rolled back once its backend notices; its batch left nothing.
      await until('the dead batch to end', async () => {
        const open = await direct.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%INSERT INTO webhook_delivery_queue%'
             AND pid <> pg_backend_pid()`,
        );
        return open.rowCount === 0;
      });
      expect(await position()).toBeLessThan(sequence);
      expect(await deliveriesOf(admin, `eventId=${eventId}`)).toEqual([]);

      workers.push(await startWorker(workerEnv));
      await until('the delivery', () => receiver.requests.some((r) => r.headers['webhook-id'] === eventId));
      const deliveries = await deliveriesOf(admin, `eventId=${eventId}`);
      expect(deliveries.map((d) => d.webhookEndpointId)).toEqual([endpoint.webhookEndpointId]);
      expect(await position()).toBeGreaterThanOrEqual(sequence);
    });
  },
);
