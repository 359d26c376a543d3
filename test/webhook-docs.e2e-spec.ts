import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { generateWebhookSecret } from '../src/modules/webhooks/domain/webhook-secret';
import { webhookHeaders } from '../src/modules/webhooks/domain/webhook-signature';
import { adminClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { freePort } from './support/net';
import { bootTestApp, TestApp } from './support/test-app';
import { createEndpoint, recordEvent, until, WEBHOOK_DELIVERIES, deliveriesOf } from './support/webhooks';

/**
 * The receiver example of docs/events.md, taken from the page as it is and run: it gets a real delivery,
 * verifies it with the `standardwebhooks` package, logs it once although it is delivered twice (a manual
 * retry, same `webhook-id`), and refuses a request signed with another secret.
 */
const ROOT = path.resolve(__dirname, '..');

function receiverExample(): string {
  const page = fs.readFileSync(path.join(ROOT, 'docs/events.md'), 'utf8');
  const section = page.slice(page.indexOf('### A receiver in a few lines'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('docs/events.md has no receiver example');
  return code;
}

describe('the receiver example of docs/events.md', () => {
  let t: TestApp;
  let admin: ApiClient;
  let example: ChildProcess | undefined;
  let directory: string;
  const endpoints: string[] = [];

  beforeAll(async () => {
    t = await bootTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    admin = await adminClient(t);
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'receiver-example-'));
  });
  afterAll(async () => {
    example?.kill('SIGKILL');
    fs.rmSync(directory, { recursive: true, force: true });
    await t.app
      .get(DataSource)
      .query('DELETE FROM webhook_endpoints WHERE webhook_endpoint_id = ANY ($1)', [endpoints]);
    await t.close();
  });

  it('verifies a delivery, dedupes by webhook-id and refuses a forged one', async () => {
    const port = await freePort();
    const endpoint = await createEndpoint(admin, {
      url: `http://127.0.0.1:${port}/`,
      eventTypes: ['ORDER_REFUNDED'],
    });
    endpoints.push(endpoint.webhookEndpointId);
    const file = path.join(directory, 'receiver.js');
    fs.writeFileSync(file, receiverExample());
    let output = '';
    example = spawn(process.execPath, [file], {
      env: {
        ...process.env,
        PORT: String(port),
        WEBHOOK_SECRET: endpoint.secret,
        NODE_PATH: path.join(ROOT, 'node_modules'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    example.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    example.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    await until('the example to listen', async () =>
      (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).catch(() => undefined))
        ?.status === 400
        ? true
        : undefined,
    );

    const eventId = await recordEvent(t, 'ORDER_REFUNDED');
    const logged = await until('the example to log the event', () =>
      output.includes(eventId) ? output : undefined,
    );
    expect(JSON.parse(logged.trim().split('\n')[0])).toMatchObject({ received: 'ORDER_REFUNDED', eventId });

    const [delivery] = await until('the delivery to succeed', async () => {
      const found = await deliveriesOf(
        admin,
        `webhookEndpointId=${endpoint.webhookEndpointId}&status=SUCCEEDED`,
      );
      return found.length === 1 ? found : undefined;
    });
    expect((await admin('POST', `${WEBHOOK_DELIVERIES}/${delivery.deliveryId}/retry`)).statusCode).toBe(200);
    await until('the retry to succeed', async () => {
      const again = (await admin('GET', `${WEBHOOK_DELIVERIES}/${delivery.deliveryId}`)).json<{
        status: string;
        attempts: number;
      }>();
      return again.status === 'SUCCEEDED' && again.attempts === 2 ? true : undefined;
    });
    expect(output.trim().split('\n')).toHaveLength(1);

    const body = Buffer.from(JSON.stringify({ eventId: 'forged', type: 'ORDER_REFUNDED' }));
    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...webhookHeaders([generateWebhookSecret()], 'msg_forged', Math.floor(Date.now() / 1000), body),
      },
      body,
    });
    expect(forged.status).toBe(400);
    expect(output).not.toContain('forged');
  });
});
