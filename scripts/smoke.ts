import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';

/**
 * `npm run test:smoke -- --base-url <url> --token <bearer> [--json <file>]`: a black-box check of a running
 * deployment over HTTP — probes, an order's life (create, confirm, read, list, cancel), an attachment round
 * trip, a customer export to completion with its file, a Problem Details error in ru and en. It cleans up what
 * it made (the attachment and the order are deleted; a product it made is DISCONTINUED; the export task and
 * its file stay until TASK_RETENTION_DAYS) and exits 1 with a readable report when any check fails.
 *
 * The order needs a product: with an ADMIN token the suite creates one; with any other token it takes an
 * ACTIVE product with stock from the catalogue (and says so when there is none). Plain Node and fetch: it
 * imports nothing of the service.
 */

// The smallest PNG: 1×1, one grey pixel.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==',
  'base64',
);
const REQUEST_TIMEOUT_MS = 15_000;

interface Options {
  baseUrl: string;
  authorization: string;
  json?: string;
  exportTimeoutSeconds: number;
}

class SmokeFailure extends Error {}

function parseArgs(argv: string[], env: NodeJS.ProcessEnv): Options {
  const value = (name: string) => {
    const at = argv.indexOf(name);
    return at === -1 ? undefined : argv[at + 1];
  };
  const baseUrl = value('--base-url') ?? env.SMOKE_BASE_URL;
  const token = value('--token') ?? env.SMOKE_TOKEN;
  if (!baseUrl || !token) {
    throw new SmokeFailure(
      'usage: npm run test:smoke -- --base-url <url> --token <bearer token> [--json <report.json>] ' +
        '[--export-timeout <seconds>] (or SMOKE_BASE_URL, SMOKE_TOKEN)',
    );
  }
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    authorization: /^Bearer /i.test(token) ? token : `Bearer ${token}`,
    json: value('--json'),
    exportTimeoutSeconds: Number(value('--export-timeout') ?? 120),
  };
}

interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  text: string;
  json: () => Record<string, unknown>;
}

interface Step {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  ms: number;
  detail?: string;
}

export class SmokeRun {
  readonly steps: Step[] = [];
  private readonly runId = randomUUID().slice(0, 8);

  constructor(
    private readonly options: Options,
    private readonly out: (line: string) => void,
  ) {}

  /** One HTTP call; `expect` is the status the check requires (its body is quoted when it differs). */
  async call(
    method: string,
    path: string,
    expect: number,
    init: { body?: unknown; form?: FormData; headers?: Record<string, string>; auth?: boolean } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...init.headers };
    if (init.auth !== false) headers.authorization = this.options.authorization;
    let body: string | FormData | undefined;
    if (init.form) body = init.form;
    else if (init.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(init.body);
    }
    let response: Response;
    try {
      response = await fetch(`${this.options.baseUrl}${path}`, {
        method,
        headers,
        body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new SmokeFailure(
        `${method} ${path}: no answer (${(error as Error).cause ?? (error as Error).message})`,
      );
    }
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    if (response.status !== expect) {
      throw new SmokeFailure(
        `${method} ${path}: expected ${expect}, got ${response.status}: ${text.slice(0, 300)}`,
      );
    }
    return {
      status: response.status,
      headers: response.headers,
      bytes,
      text,
      json: () => {
        try {
          return JSON.parse(text) as Record<string, unknown>;
        } catch {
          throw new SmokeFailure(`${method} ${path}: the body is not JSON: ${text.slice(0, 200)}`);
        }
      },
    };
  }

  /** Runs a check; a failed or skipped `needs` skips it. Returns what the check returned, when it passed. */
  async step<T>(name: string, check: () => Promise<T>, needs: unknown[] = []): Promise<T | undefined> {
    const started = Date.now();
    if (needs.some((n) => n === undefined)) {
      this.record({ name, outcome: 'skipped', ms: 0 });
      return undefined;
    }
    try {
      const result = await check();
      this.record({ name, outcome: 'passed', ms: Date.now() - started });
      return result ?? (true as T);
    } catch (error) {
      const detail = error instanceof SmokeFailure ? error.message : String((error as Error).stack ?? error);
      this.record({ name, outcome: 'failed', ms: Date.now() - started, detail });
      return undefined;
    }
  }

  private record(step: Step): void {
    this.steps.push(step);
    const mark = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip' }[step.outcome];
    const timing = step.outcome === 'skipped' ? '(an earlier step it needs did not pass)' : `(${step.ms} ms)`;
    this.out(`  ${mark} ${step.name} ${timing}${step.detail ? `\n         ${step.detail}` : ''}`);
  }

  async run(): Promise<void> {
    const { baseUrl } = this.options;
    this.out(`smoke: ${baseUrl} (run ${this.runId})`);
    let createdProductId: string | undefined;
    let orderId: string | undefined;
    let orderGone = false;
    let cancelled = false;
    try {
      await this.step('GET /health answers 200', async () => {
        await this.call('GET', '/health', 200, { auth: false });
      });
      await this.step('GET /ready answers 200: PostgreSQL and Redis up', async () => {
        const ready = (await this.call('GET', '/ready', 200, { auth: false })).json();
        check(ready.status === 'ok', `status is ${String(ready.status)}`);
      });
      const me = await this.step('the token is accepted (GET /api/v1/users/me)', async () => {
        const user = (await this.call('GET', '/api/v1/users/me', 200)).json();
        return { userId: String(user.userId), admin: (user.roles as string[]).includes('ADMIN') };
      });

      const productId = await this.step(
        'a product to order (created with an admin token, else an ACTIVE one with stock)',
        async () => {
          if (me?.admin) {
            const product = await this.call('POST', '/api/v1/products', 201, {
              body: { name: `Smoke test kettle ${this.runId}`, price: 9.99, stock: 5, status: 'ACTIVE' },
            });
            createdProductId = String(product.json().productId);
            return createdProductId;
          }
          for (let page = 1; page <= 20; page++) {
            const list = (await this.call('GET', `/api/v1/products?page=${page}&size=100`, 200)).json();
            const content = list.content as { productId: string; status: string; stock: number }[];
            const found = content.find((p) => p.status === 'ACTIVE' && p.stock >= 1);
            if (found) return found.productId;
            if (page >= Number(list.totalPages)) break;
          }
          throw new SmokeFailure(
            'no ACTIVE product with stock in the catalogue: run with an admin token, or add one',
          );
        },
        [me],
      );

      orderId = await this.step(
        'POST /api/v1/orders creates an order (201, Location, traceparent)',
        async () => {
          const created = await this.call('POST', '/api/v1/orders', 201, {
            headers: { 'idempotency-key': randomUUID() },
            body: { items: [{ productId, quantity: 1 }], note: `smoke ${this.runId}` },
          });
          const order = created.json();
          check(order.status === 'CREATED', `status is ${String(order.status)}`);
          check(
            created.headers.get('location') === `/api/v1/orders/${String(order.orderId)}`,
            'Location header',
          );
          check(
            /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/.test(created.headers.get('traceparent') ?? ''),
            'traceparent',
          );
          return String(order.orderId);
        },
        [productId],
      );
      const confirmed = await this.step(
        'POST .../confirm confirms it (stock reserved)',
        async () => {
          const order = (await this.call('POST', `/api/v1/orders/${orderId}/confirm`, 200)).json();
          check(order.status === 'CONFIRMED', `status is ${String(order.status)}`);
        },
        [orderId],
      );
      await this.step(
        'GET /api/v1/orders/{orderId} reads it, and If-None-Match with its ETag gives 304',
        async () => {
          const read = await this.call('GET', `/api/v1/orders/${orderId}`, 200);
          check(read.json().status === 'CONFIRMED', `status is ${String(read.json().status)}`);
          const etag = read.headers.get('etag');
          check(!!etag, 'no ETag');
          await this.call('GET', `/api/v1/orders/${orderId}`, 304, {
            headers: { 'if-none-match': String(etag) },
          });
        },
        [orderId, confirmed],
      );
      await this.step(
        'GET /api/v1/orders?q=... lists it',
        async () => {
          const page = (await this.call('GET', `/api/v1/orders?q=${this.runId}&size=100`, 200)).json();
          const ids = (page.content as { orderId: string }[]).map((o) => o.orderId);
          check(ids.includes(String(orderId)), `the list holds ${ids.length} orders, not this one`);
        },
        [orderId],
      );

      const attachment = await this.step(
        'POST .../attachments uploads a PNG (201, Location)',
        async () => {
          const form = new FormData();
          form.append('description', 'smoke test');
          form.append('file', new Blob([PNG], { type: 'image/png' }), 'smoke.png');
          const uploaded = await this.call('POST', `/api/v1/orders/${orderId}/attachments`, 201, { form });
          const location = uploaded.headers.get('location');
          check(!!location, 'no Location header');
          return String(location);
        },
        [orderId],
      );
      await this.step(
        'GET the attachment downloads the same bytes as image/png',
        async () => {
          const download = await this.call('GET', String(attachment), 200);
          check(
            download.headers.get('content-type') === 'image/png',
            `type ${download.headers.get('content-type')}`,
          );
          check(download.bytes.equals(PNG), `${download.bytes.length} bytes, not the ${PNG.length} uploaded`);
        },
        [attachment],
      );
      await this.step(
        'DELETE the attachment (204), then it is 404',
        async () => {
          await this.call('DELETE', String(attachment), 204);
          await this.call('GET', String(attachment), 404);
        },
        [attachment],
      );

      const wasCancelled = await this.step(
        'POST .../cancel cancels it (stock released)',
        async () => {
          const order = (
            await this.call('POST', `/api/v1/orders/${orderId}/cancel`, 200, {
              body: { reason: 'smoke test' },
            })
          ).json();
          check(order.status === 'CANCELLED', `status is ${String(order.status)}`);
        },
        [orderId],
      );
      cancelled = wasCancelled !== undefined;

      const resultUrl = await this.step(
        'POST /api/v1/customers/{customerId}/export runs to COMPLETED',
        async () => {
          const started = await this.call('POST', `/api/v1/customers/${me?.userId}/export`, 202, {
            body: { format: 'JSON' },
          });
          const location = String(started.headers.get('location'));
          const deadline = Date.now() + this.options.exportTimeoutSeconds * 1000;
          for (;;) {
            const task = (await this.call('GET', location, 200)).json();
            if (task.status === 'COMPLETED') return String(task.resultUrl);
            if (task.status === 'FAILED' || task.status === 'CANCELLED') {
              throw new SmokeFailure(
                `task ${location} is ${String(task.status)}: ${JSON.stringify(task.error)}`,
              );
            }
            if (Date.now() > deadline) {
              throw new SmokeFailure(
                `task ${location} still ${String(task.status)} after ${this.options.exportTimeoutSeconds} s`,
              );
            }
            await new Promise((r) => setTimeout(r, 500));
          }
        },
        [me, orderId],
      );
      await this.step(
        'GET the export downloads a JSON file holding the order',
        async () => {
          const file = await this.call('GET', String(resultUrl), 200);
          check(
            /attachment/.test(file.headers.get('content-disposition') ?? ''),
            'no Content-Disposition: attachment',
          );
          const orders = JSON.parse(file.text) as { orderId: string }[];
          check(
            orders.some((o) => o.orderId === orderId),
            `${orders.length} orders, not this one`,
          );
        },
        [resultUrl],
      );

      await this.step('an unknown order is a Problem Details 404 in ru and in en', async () => {
        const missing = `/api/v1/orders/${randomUUID()}`;
        const answers = [];
        for (const lang of ['ru', 'en']) {
          const answer = await this.call('GET', missing, 404, { headers: { 'accept-language': lang } });
          check(
            (answer.headers.get('content-type') ?? '').startsWith('application/problem+json'),
            `content type ${answer.headers.get('content-type')}`,
          );
          check(
            answer.headers.get('content-language') === lang,
            `Content-Language ${answer.headers.get('content-language')}`,
          );
          const problem = answer.json();
          check(
            problem.traceId === answer.headers.get('traceparent'),
            'traceId is not the response traceparent',
          );
          answers.push(problem);
        }
        const [ru, en] = answers;
        check(
          ru.code === 'ORDER_NOT_FOUND' && en.code === 'ORDER_NOT_FOUND',
          `codes ${String(ru.code)}, ${String(en.code)}`,
        );
        check(ru.title === en.title && ru.type === en.type, 'title or type differ between languages');
        check(ru.detail !== en.detail, 'detail is the same text in ru and en');
      });

      await this.step(
        'DELETE the cancelled order (204), then it is 404',
        async () => {
          await this.call('DELETE', `/api/v1/orders/${orderId}`, 204);
          orderGone = true;
          await this.call('GET', `/api/v1/orders/${orderId}`, 404);
        },
        [orderId, wasCancelled],
      );
    } finally {
      await this.cleanUp(orderId, orderGone, cancelled, createdProductId);
    }
  }

  /** Whatever a failed step left behind: the order (cancelled first if need be), the product made. */
  private async cleanUp(orderId: string | undefined, gone: boolean, cancelled: boolean, productId?: string) {
    const leftovers: string[] = [];
    if (orderId && !gone) {
      if (!cancelled) {
        await this.call('POST', `/api/v1/orders/${orderId}/cancel`, 200, {
          body: { reason: 'smoke clean-up' },
        }).catch(() => undefined);
      }
      const deleted = await this.call('DELETE', `/api/v1/orders/${orderId}`, 204).catch(() => undefined);
      if (!deleted) leftovers.push(`order ${orderId}`);
    }
    if (productId) {
      const retired = await this.call('PATCH', `/api/v1/products/${productId}`, 200, {
        headers: { 'content-type': 'application/merge-patch+json' },
        body: { status: 'DISCONTINUED' },
      }).catch(() => undefined);
      if (!retired) leftovers.push(`product ${productId} (still ACTIVE)`);
    }
    if (leftovers.length > 0) this.out(`  clean-up left behind: ${leftovers.join(', ')}`);
  }
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new SmokeFailure(message);
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  let options: Options;
  try {
    options = parseArgs(argv, process.env);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const run = new SmokeRun(options, (line) => console.log(line));
  await run.run();
  const count = (outcome: Step['outcome']) => run.steps.filter((s) => s.outcome === outcome).length;
  const [passed, failed, skipped] = [count('passed'), count('failed'), count('skipped')];
  if (options.json)
    writeFileSync(options.json, JSON.stringify({ passed, failed, skipped, steps: run.steps }, null, 2));
  console.log(`smoke: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  return failed + skipped > 0 ? 1 : 0;
}

if (require.main === module) {
  void main().then((code) => {
    process.exitCode = code;
  });
}
