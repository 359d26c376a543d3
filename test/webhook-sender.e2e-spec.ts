import { spawn } from 'node:child_process';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { WebhookVerificationError } from 'standardwebhooks';
import { GONE_STATUS } from '../src/modules/webhooks/domain/attempt-outcome';
import { DestinationPolicy } from '../src/modules/webhooks/domain/destination-policy';
import { stepAfterAttempt } from '../src/modules/webhooks/domain/retry-schedule';
import { generateWebhookSecret } from '../src/modules/webhooks/domain/webhook-secret';
import {
  checkWebhookDestination,
  HostResolver,
  ResolvedAddress,
} from '../src/modules/webhooks/webhook-destinations';
import {
  MAX_ANSWER_BODY_BYTES,
  WebhookMessage,
  WebhookSender,
  WebhookSenderOptions,
} from '../src/modules/webhooks/webhook-sender';
import { freePort } from './support/net';
import { Certificate, selfSignedCertificate } from './support/tls';
import { Answer, ReceivedRequest, verifyWebhook, WebhookReceiver } from './support/webhook-receiver';
import { until } from './support/wait';

/**
 * The webhook sender against real receivers on this machine: plain HTTP, and HTTPS with a self-signed
 * certificate the sender trusts through its `ca` option. What a receiver gets (verified with the
 * `standardwebhooks` package, as a customer verifies it), how each answer is classified for the delivery
 * record, and the destination policy where it matters most: on the address the connection really goes to.
 *
 * A test's resolver plays DNS: `receiver.test` is 127.0.0.1, and loopback is allowed only where a test says
 * so (`127.0.0.0/8` in the allowed networks), so the same receivers stand for public and private hosts.
 */
const ROOT = path.resolve(__dirname, '..');
const LOOPBACK: ResolvedAddress = { address: '127.0.0.1', family: 4 };
const PUBLIC: ResolvedAddress = { address: '93.184.216.34', family: 4 };

/** A resolver answering from a table (a name not in it does not exist), counting its lookups. */
function resolverOf(table: Record<string, ResolvedAddress[]>): HostResolver & { lookups: string[] } {
  const lookups: string[] = [];
  const resolve = async (hostname: string) => {
    lookups.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    return addresses;
  };
  return Object.assign(resolve, { lookups });
}

const loopbackAllowed = new DestinationPolicy({ allowPrivateUrls: false, allowedNetworks: ['127.0.0.0/8'] });
const strict = new DestinationPolicy({ allowPrivateUrls: false, allowedNetworks: [] });

let certificate: Certificate;
const receivers: WebhookReceiver[] = [];
const senders: WebhookSender[] = [];

beforeAll(() => {
  certificate = selfSignedCertificate('receiver.test');
});

afterEach(async () => {
  for (const sender of senders.splice(0)) sender.close();
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(options: Parameters<typeof WebhookReceiver.start>[0] = {}): Promise<WebhookReceiver> {
  const started = await WebhookReceiver.start(options);
  receivers.push(started);
  return started;
}

async function httpsReceiver(answer?: Answer): Promise<WebhookReceiver> {
  return receiver({ tls: certificate, answer });
}

function sender(options: Partial<WebhookSenderOptions> = {}): WebhookSender {
  const made = new WebhookSender({
    policy: loopbackAllowed,
    resolveHost: resolverOf({ 'receiver.test': [LOOPBACK] }),
    ca: certificate.cert,
    ...options,
  });
  senders.push(made);
  return made;
}

function message(url: string, overrides: Partial<WebhookMessage> = {}): WebhookMessage {
  return {
    url,
    webhookId: 'f1d2c3b4-a596-4877-8899-aabbccddeeff',
    body: Buffer.from(
      JSON.stringify({ eventId: 'f1d2c3b4-a596-4877-8899-aabbccddeeff', type: 'ORDER_CREATED' }),
    ),
    secrets: [generateWebhookSecret()],
    ...overrides,
  };
}

const answering =
  (status: number, headers: http.OutgoingHttpHeaders = {}, body?: string | Buffer) =>
  (_: ReceivedRequest, response: http.ServerResponse) => {
    response.writeHead(status, headers).end(body);
  };

describe('what a receiver gets', () => {
  it('a POST of the exact body with the Standard Webhooks headers, over TLS checked against the host name', async () => {
    const target = await httpsReceiver();
    const secret = generateWebhookSecret();
    const body = Buffer.from('{"eventId":"e1","type":"ORDER_CREATED","data":{"note":"Grüße 🚀"}}', 'utf8');
    const at = Date.parse('2026-03-01T12:00:00.750Z');
    const outcome = await sender({ now: () => at }).send(
      message(target.url('/hooks/orders?tenant=7', 'receiver.test'), {
        webhookId: 'evt-1',
        body,
        secrets: [secret],
      }),
    );

    expect(outcome).toEqual({ result: 'SUCCEEDED', status: 204 });
    expect(target.requests).toHaveLength(1);
    const [request] = target.requests;
    expect(request).toMatchObject({ method: 'POST', url: '/hooks/orders?tenant=7' });
    expect(request.body.equals(body)).toBe(true);
    expect(request.headers).toMatchObject({
      host: `receiver.test:${target.port}`,
      'content-type': 'application/json',
      'content-length': String(body.length),
      'webhook-id': 'evt-1',
      'webhook-timestamp': String(Math.floor(at / 1000)),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
  });

  it('a request the standardwebhooks library verifies, and no other secret does', async () => {
    const target = await httpsReceiver();
    const secret = generateWebhookSecret();
    const body = Buffer.from('{"eventId":"e2","type":"ORDER_CONFIRMED","sequence":42}');
    await sender().send(
      message(target.url('/hook', 'receiver.test'), { webhookId: 'e2', body, secrets: [secret] }),
    );

    expect(verifyWebhook(secret, target.requests[0])).toEqual({
      eventId: 'e2',
      type: 'ORDER_CONFIRMED',
      sequence: 42,
    });
    expect(() => verifyWebhook(generateWebhookSecret(), target.requests[0])).toThrow(
      WebhookVerificationError,
    );
  });

  it('during a secret rotation, a signature each receiver verifies, with the old secret or the new one', async () => {
    const target = await httpsReceiver();
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    await sender().send(message(target.url('/hook', 'receiver.test'), { secrets: [newSecret, oldSecret] }));

    const [request] = target.requests;
    expect((request.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(verifyWebhook(oldSecret, request)).toMatchObject({ type: 'ORDER_CREATED' });
    expect(verifyWebhook(newSecret, request)).toMatchObject({ type: 'ORDER_CREATED' });
    expect(() => verifyWebhook(generateWebhookSecret(), request)).toThrow(WebhookVerificationError);
  });

  it('the same connection for the next attempts to the same receiver', async () => {
    const target = await receiver();
    const send = sender({ policy: new DestinationPolicy({ allowPrivateUrls: true, allowedNetworks: [] }) });
    for (let i = 0; i < 3; i++)
      expect(await send.send(message(target.url()))).toMatchObject({ result: 'SUCCEEDED' });
    expect(target.connections).toBe(1);
    expect(new Set(target.requests.map((r) => r.remotePort)).size).toBe(1);
  });
});

describe('the outcome of an attempt', () => {
  it.each([200, 201, 202, 204, 299])('%i is a success', async (status) => {
    const target = await httpsReceiver(answering(status, {}, 'thanks'));
    expect(await sender().send(message(target.url('/hook', 'receiver.test')))).toEqual({
      result: 'SUCCEEDED',
      status,
    });
  });

  it.each([400, 401, 404, 409, 500, 502])('%i fails with its status, to be retried', async (status) => {
    const target = await httpsReceiver(answering(status, { 'retry-after': '60' }));
    const outcome = await sender().send(message(target.url('/hook', 'receiver.test')));
    expect(outcome).toEqual({ result: 'HTTP_STATUS', status });
    expect(stepAfterAttempt(outcome, 1, [5000], () => 0)).toMatchObject({
      status: 'PENDING',
      retryInMs: 5000,
    });
  });

  it('410 Gone fails for good and tells the endpoint is gone', async () => {
    const target = await httpsReceiver(answering(GONE_STATUS));
    const outcome = await sender().send(message(target.url('/hook', 'receiver.test')));
    expect(outcome).toEqual({ result: 'HTTP_STATUS', status: 410 });
    expect(stepAfterAttempt(outcome, 1, [5000])).toEqual({
      status: 'FAILED',
      error: 'HTTP_STATUS',
      endpointGone: true,
    });
  });

  it('429 and 503 carry their Retry-After, in seconds or as an HTTP date', async () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    const tooMany = await httpsReceiver(answering(429, { 'retry-after': '120' }));
    const unavailable = await httpsReceiver(
      answering(503, { 'retry-after': 'Sun, 01 Mar 2026 12:10:00 GMT' }),
    );
    const send = sender({ now: () => now });
    expect(await send.send(message(tooMany.url('/hook', 'receiver.test')))).toEqual({
      result: 'HTTP_STATUS',
      status: 429,
      retryAfterSeconds: 120,
    });
    expect(await send.send(message(unavailable.url('/hook', 'receiver.test')))).toEqual({
      result: 'HTTP_STATUS',
      status: 503,
      retryAfterSeconds: 600,
    });
  });

  it('a redirect is not followed: a failed attempt with its status, the target never asked', async () => {
    const elsewhere = await httpsReceiver();
    const target = await httpsReceiver(
      answering(307, { location: elsewhere.url('/stolen', 'receiver.test') }),
    );
    const outcome = await sender().send(message(target.url('/hook', 'receiver.test')));
    expect(outcome).toEqual({ result: 'HTTP_STATUS', status: 307 });
    expect(elsewhere.connections).toBe(0);
  });

  it('no status line and headers in time is a timeout', async () => {
    const silent = await httpsReceiver(() => undefined);
    const outcome = await sender({ responseTimeoutMs: 200 }).send(
      message(silent.url('/hook', 'receiver.test')),
    );
    expect(outcome).toEqual({ result: 'TIMEOUT' });
    expect(silent.requests).toHaveLength(1);
  });

  it('a TLS handshake that never completes is a timeout too (connecting counts)', async () => {
    let connections = 0;
    const mute = net.createServer(() => connections++);
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    try {
      const port = (mute.address() as net.AddressInfo).port;
      const outcome = await sender({ responseTimeoutMs: 200 }).send(
        message(`https://receiver.test:${port}/hook`),
      );
      expect(outcome).toEqual({ result: 'TIMEOUT' });
      expect(connections).toBe(1);
    } finally {
      mute.close();
    }
  });

  it('headers in time are enough: a body that never ends does not hold the attempt past the limit', async () => {
    const trickle = await httpsReceiver((_, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('still working…');
    });
    const outcome = await sender({ responseTimeoutMs: 300 }).send(
      message(trickle.url('/hook', 'receiver.test')),
    );
    expect(outcome).toEqual({ result: 'SUCCEEDED', status: 200 });
  });

  it(`reads at most ${MAX_ANSWER_BODY_BYTES / 1024} KiB of the answer, then drops the connection`, async () => {
    let finished: boolean | undefined;
    const chatty = await receiver({
      answer: (_, response) => {
        // Far more than socket buffers hold: only a reader that reads it all lets the answer finish.
        response.on('close', () => (finished = response.writableFinished));
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(64 * 1024);
        let left = 4096;
        const write = (): void => {
          while (left > 0 && !response.destroyed) {
            left--;
            if (left === 0) response.end(chunk);
            else if (!response.write(chunk)) return void response.once('drain', write);
          }
        };
        write();
      },
    });
    const send = sender({ policy: new DestinationPolicy({ allowPrivateUrls: true, allowedNetworks: [] }) });
    expect(await send.send(message(chatty.url()))).toEqual({ result: 'SUCCEEDED', status: 200 });
    await until('the attempt to finish', () => finished !== undefined, { intervalMs: 10 });
    expect(finished).toBe(false);
  });

  it(`reads an answer of ${MAX_ANSWER_BODY_BYTES / 1024} KiB to its end and keeps the connection`, async () => {
    let finished: boolean | undefined;
    const target = await receiver({
      answer: (_, response) => {
        response.on('finish', () => (finished = true));
        response.writeHead(200).end(Buffer.alloc(MAX_ANSWER_BODY_BYTES));
      },
    });
    const send = sender({ policy: new DestinationPolicy({ allowPrivateUrls: true, allowedNetworks: [] }) });
    expect(await send.send(message(target.url()))).toEqual({ result: 'SUCCEEDED', status: 200 });
    expect(await send.send(message(target.url()))).toEqual({ result: 'SUCCEEDED', status: 200 });
    expect(finished).toBe(true);
    expect(target.connections).toBe(1);
  });

  it('a refused connection, a name that does not resolve, or an answer that is not HTTP fails the connection', async () => {
    const closedPort = await freePort();
    const garbage = net.createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.2\r\n'));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const send = sender({ policy: new DestinationPolicy({ allowPrivateUrls: true, allowedNetworks: [] }) });
    try {
      expect(await send.send(message(`http://127.0.0.1:${closedPort}/hook`))).toEqual({
        result: 'CONNECTION_FAILED',
        detail: expect.stringContaining('ECONNREFUSED'),
      });
      expect(await send.send(message('https://nowhere.test/hook'))).toEqual({
        result: 'CONNECTION_FAILED',
        detail: expect.stringContaining('ENOTFOUND'),
      });
      expect(
        await send.send(message(`http://127.0.0.1:${(garbage.address() as net.AddressInfo).port}/`)),
      ).toMatchObject({ result: 'CONNECTION_FAILED' });
    } finally {
      garbage.close();
    }
  });

  it('a certificate the sender does not trust, or for another name, fails the connection', async () => {
    const target = await httpsReceiver();
    const untrusting = sender({ ca: undefined });
    expect(await untrusting.send(message(target.url('/hook', 'receiver.test')))).toMatchObject({
      result: 'CONNECTION_FAILED',
      detail: expect.stringMatching(/self[- ]signed/i),
    });
    const otherName = sender({ resolveHost: resolverOf({ 'other.test': [LOOPBACK] }) });
    expect(await otherName.send(message(target.url('/hook', 'other.test')))).toMatchObject({
      result: 'CONNECTION_FAILED',
      detail: expect.stringContaining('other.test'),
    });
    expect(target.requests).toHaveLength(0);
  });
});

describe('the destination policy at connect time', () => {
  it('refuses a literal private address without connecting', async () => {
    const target = await httpsReceiver();
    const outcome = await sender({ policy: strict }).send(message(target.url('/hook', '127.0.0.1')));
    expect(outcome).toEqual({
      result: 'URL_NOT_ALLOWED',
      detail: '127.0.0.1 is a loopback address (127.0.0.0/8)',
      host: '127.0.0.1',
      addresses: ['127.0.0.1'],
    });
    expect(target.connections).toBe(0);
    expect(stepAfterAttempt(outcome, 1, [5000])).toEqual({
      status: 'FAILED',
      error: 'URL_NOT_ALLOWED',
      endpointGone: false,
    });
  });

  it('refuses a name that resolves to a private address, one of several included, without connecting', async () => {
    const target = await httpsReceiver();
    const resolveHost = resolverOf({ 'receiver.test': [LOOPBACK], 'mixed.test': [PUBLIC, LOOPBACK] });
    const send = sender({ policy: strict, resolveHost });
    expect(await send.send(message(target.url('/hook', 'receiver.test')))).toEqual({
      result: 'URL_NOT_ALLOWED',
      detail: 'receiver.test: 127.0.0.1 is a loopback address (127.0.0.0/8)',
      host: 'receiver.test',
      addresses: [LOOPBACK.address],
    });
    // Every address the name resolved to, for the refusal's log line.
    expect(await send.send(message(target.url('/hook', 'mixed.test')))).toMatchObject({
      result: 'URL_NOT_ALLOWED',
      host: 'mixed.test',
      addresses: [PUBLIC.address, LOOPBACK.address],
    });
    expect(resolveHost.lookups).toEqual(['receiver.test', 'mixed.test']);
    expect(target.connections).toBe(0);
  });

  it('refuses http and user info before anything else', async () => {
    const resolveHost = resolverOf({});
    const send = sender({ policy: strict, resolveHost });
    expect(await send.send(message('http://example.com/hook'))).toMatchObject({ result: 'URL_NOT_ALLOWED' });
    expect(await send.send(message('https://user:pass@example.com/hook'))).toMatchObject({
      result: 'URL_NOT_ALLOWED',
    });
    expect(resolveHost.lookups).toEqual([]);
  });

  it('catches DNS rebinding: public when the endpoint was saved, private when the attempt connects', async () => {
    const target = await httpsReceiver();
    const answers = [[PUBLIC], [LOOPBACK]];
    const rebinding: HostResolver = async () => answers.shift() ?? [LOOPBACK];
    const url = target.url('/hook', 'rebind.test');

    expect(await checkWebhookDestination(url, strict, rebinding)).toEqual({ allowed: true, resolved: true });
    expect(await sender({ policy: strict, resolveHost: rebinding }).send(message(url))).toEqual({
      result: 'URL_NOT_ALLOWED',
      detail: 'rebind.test: 127.0.0.1 is a loopback address (127.0.0.0/8)',
      host: 'rebind.test',
      addresses: [LOOPBACK.address],
    });
    expect(target.connections).toBe(0);
  });

  it('connects to the address it judged, for a name in the allowed networks', async () => {
    const target = await httpsReceiver();
    const resolveHost = resolverOf({ 'receiver.test': [LOOPBACK] });
    expect(await sender({ resolveHost }).send(message(target.url('/hook', 'receiver.test')))).toMatchObject({
      result: 'SUCCEEDED',
    });
    expect(resolveHost.lookups).toEqual(['receiver.test']);
    expect(target.requests).toHaveLength(1);
  });
});

describe('environment proxies', () => {
  it('are never used, even where Node honours them (NODE_USE_ENV_PROXY)', async () => {
    const proxied: string[] = [];
    const proxy = http.createServer((request, response) => {
      proxied.push(`${request.method} ${request.url}`);
      response.writeHead(502).end();
    });
    proxy.on('connect', (request: http.IncomingMessage, socket: net.Socket) => {
      proxied.push(`CONNECT ${request.url}`);
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    const plain = await receiver();
    const secure = await httpsReceiver();
    try {
      // The built sender in a process of its own, whose environment names the proxy for every scheme.
      const report = await runNode(
        SENDER_IN_A_PROCESS,
        [plain.url('/hook'), secure.url('/hook', 'receiver.test'), certificate.cert, plain.url('/control')],
        {
          HTTP_PROXY: proxyUrl,
          HTTPS_PROXY: proxyUrl,
          http_proxy: proxyUrl,
          https_proxy: proxyUrl,
          ALL_PROXY: proxyUrl,
          NODE_USE_ENV_PROXY: '1',
        },
      );
      expect(report.outcomes).toEqual([
        { result: 'SUCCEEDED', status: 204 },
        { result: 'SUCCEEDED', status: 204 },
      ]);
      expect(plain.requests.map((r) => r.url)).toContain('/hook');
      expect(secure.requests.map((r) => r.url)).toEqual(['/hook']);
      // The control: where this Node honours the variables, its own client does go through the proxy.
      expect(proxied).toEqual(report.honoursEnvProxy ? [`GET ${plain.url('/control')}`] : []);
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  });
});

/** Sends one webhook over HTTP and one over HTTPS with the built sender, then a control request (global agent). */
const SENDER_IN_A_PROCESS = `
const http = require('node:http');
const { WebhookSender } = require('./dist/src/modules/webhooks/webhook-sender.js');
const { DestinationPolicy } = require('./dist/src/modules/webhooks/domain/destination-policy.js');
const { generateWebhookSecret } = require('./dist/src/modules/webhooks/domain/webhook-secret.js');
const [plainUrl, secureUrl, ca, controlUrl] = process.argv.slice(1);
(async () => {
  const sender = new WebhookSender({
    policy: new DestinationPolicy({ allowPrivateUrls: true, allowedNetworks: [] }),
    resolveHost: async () => [{ address: '127.0.0.1', family: 4 }],
    ca,
  });
  const outcomes = [];
  for (const url of [plainUrl, secureUrl]) {
    outcomes.push(await sender.send({ url, webhookId: 'e1', body: Buffer.from('{}'), secrets: [generateWebhookSecret()] }));
  }
  sender.close();
  const honoursEnvProxy = http.globalAgent.options.proxyEnv !== undefined;
  await new Promise((resolve) => http.get(controlUrl, (r) => r.resume().on('end', resolve)).on('error', resolve));
  process.stdout.write(JSON.stringify({ outcomes, honoursEnvProxy }));
})();
`;

async function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ outcomes: unknown[]; honoursEnvProxy: boolean }> {
  const child = spawn(process.execPath, ['-e', script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`the sender's process failed (${code}): ${stderr}`);
  return JSON.parse(stdout) as { outcomes: unknown[]; honoursEnvProxy: boolean };
}
