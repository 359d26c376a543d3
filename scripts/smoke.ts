import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import {
  createOrderServiceClient,
  ProblemError,
  UnexpectedResponseError,
  type OrderServiceClient,
} from '@order-service/client';

/**
 * `SMOKE_TOKEN=<bearer> npm run test:smoke -- --base-url <url> [--json <file>]`: a black-box check of a running
 * deployment over HTTP — probes, an order's life (create, confirm, read, list, cancel), an attachment round
 * trip, a customer export to completion with its file, a Problem Details error in ru and en. It cleans up what
 * it made (the attachment and the order are deleted; a product it made is DISCONTINUED; the export task and
 * its file stay until TASK_RETENTION_DAYS) and exits 1 with a readable report when any check fails.
 *
 * The order needs a product: with an ADMIN token the suite creates one; with any other token it takes an
 * ACTIVE product with stock from the catalogue (and says so when there is none). It talks to the API through
 * the TypeScript client (client/, `@order-service/client`) as a client application does, and to the
 * operational endpoints (/health, /ready) with plain fetch; it imports nothing of the service.
 *
 * The token comes from SMOKE_TOKEN: npm prints a script's arguments in its banner, so a token given as
 * `--token` (still taken, for `node dist/scripts/smoke.js`) would show wherever the output goes.
 */

// The smallest PNG: 1×1, one grey pixel.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==',
  'base64',
);
const REQUEST_TIMEOUT_MS = 15_000;

interface Options {
  baseUrl: string;
  /** The bearer token, without its `Bearer ` prefix. */
  token: string;
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
      'usage: SMOKE_TOKEN=<bearer token> npm run test:smoke -- --base-url <url> [--json <report.json>] ' +
        '[--export-timeout <seconds>] (or SMOKE_BASE_URL; --token <bearer token> instead of SMOKE_TOKEN)',
    );
  }
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    token: token.replace(/^Bearer /i, ''),
    json: value('--json'),
    exportTimeoutSeconds: Number(value('--export-timeout') ?? 120),
  };
}

interface Step {
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  ms: number;
  detail?: string;
}

/** A call's result as the client gives it. */
interface Result<Data> {
  data?: Data;
  error?: ProblemError<string>;
  response: Response;
}

/** What went wrong, for the report: a problem's code and detail with its trace, or what happened instead. */
function describeFailure(error: unknown): string {
  if (error instanceof SmokeFailure) return error.message;
  if (error instanceof ProblemError) {
    return `${error.status} ${error.code}: ${error.detail} (traceparent ${error.traceId ?? 'none'})`;
  }
  if (error instanceof UnexpectedResponseError) {
    return `${error.status}, not an answer of the service: ${String(error.body).slice(0, 300)}`;
  }
  if (error instanceof Error && error.name === 'TimeoutError') {
    return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  }
  if (error instanceof Error) return `no answer (${String(error.cause ?? error.message)})`;
  return String(error);
}

export class SmokeRun {
  readonly steps: Step[] = [];
  private readonly runId = randomUUID().slice(0, 8);
  private readonly client: OrderServiceClient;
  private readonly clientIn: Record<'ru' | 'en', OrderServiceClient>;

  constructor(
    private readonly options: Options,
    private readonly out: (line: string) => void,
  ) {
    const connection = { baseUrl: options.baseUrl, token: options.token, timeoutMs: REQUEST_TIMEOUT_MS };
    this.client = createOrderServiceClient(connection);
    this.clientIn = {
      ru: createOrderServiceClient({ ...connection, language: 'ru' }),
      en: createOrderServiceClient({ ...connection, language: 'en' }),
    };
  }

  /** The data of a call that must succeed with `status`; its problem, or another status, fails the step. */
  private expect<Data>(what: string, result: Result<Data>, status: number): Data {
    if (result.error)
      throw new SmokeFailure(`${what}: expected ${status}, got ${describeFailure(result.error)}`);
    if (result.response.status !== status) {
      throw new SmokeFailure(`${what}: expected ${status}, got ${result.response.status}`);
    }
    return result.data as Data;
  }

  /** The problem of a call that must fail with `code`. */
  private expectProblem(what: string, result: Result<unknown>, code: string): ProblemError<string> {
    if (!result.error) throw new SmokeFailure(`${what}: expected ${code}, got ${result.response.status}`);
    if (result.error.code !== code) {
      throw new SmokeFailure(`${what}: expected ${code}, got ${describeFailure(result.error)}`);
    }
    return result.error;
  }

  /** An operational endpoint (outside the API, so not in the client): GET it without a token. */
  private async probe(path: string): Promise<Record<string, unknown>> {
    const response = await fetch(`${this.options.baseUrl}${path}`, {
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    }).catch((error: unknown) => {
      throw new SmokeFailure(`GET ${path}: ${describeFailure(error)}`);
    });
    const text = await response.text();
    if (response.status !== 200) {
      throw new SmokeFailure(`GET ${path}: expected 200, got ${response.status}: ${text.slice(0, 300)}`);
    }
    return JSON.parse(text) as Record<string, unknown>;
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
      const detail =
        error instanceof SmokeFailure ||
        error instanceof ProblemError ||
        error instanceof UnexpectedResponseError
          ? describeFailure(error)
          : String((error as Error).stack ?? error);
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
    const client = this.client;
    this.out(`smoke: ${baseUrl} (run ${this.runId})`);
    let createdProductId: string | undefined;
    let orderId: string | undefined;
    let orderGone = false;
    let cancelled = false;
    try {
      await this.step('GET /health answers 200', async () => {
        await this.probe('/health');
      });
      await this.step('GET /ready answers 200 (status ok: what the service needs is up)', async () => {
        const ready = await this.probe('/ready');
        check(ready.status === 'ok', `status is ${String(ready.status)}`);
      });
      const me = await this.step('the token is accepted (GET /api/v1/users/me)', async () => {
        const user = this.expect('GET /api/v1/users/me', await client.GET('/api/v1/users/me'), 200);
        return { userId: user.userId, admin: user.roles.includes('ADMIN') };
      });

      const productId = await this.step(
        'a product to order (created with an admin token, else an ACTIVE one with stock)',
        async () => {
          if (me?.admin) {
            const product = await client.POST('/api/v1/products', {
              body: { name: `Smoke test kettle ${this.runId}`, price: 9.99, stock: 5, status: 'ACTIVE' },
            });
            createdProductId = this.expect('POST /api/v1/products', product, 201).productId;
            return createdProductId;
          }
          for (let page = 1; page <= 20; page++) {
            const list = this.expect(
              'GET /api/v1/products',
              await client.GET('/api/v1/products', { params: { query: { page, size: 100 } } }),
              200,
            );
            const found = list.content.find((p) => p.status === 'ACTIVE' && p.stock >= 1);
            if (found) return found.productId;
            if (page >= list.totalPages) break;
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
          const created = await client.POST('/api/v1/orders', {
            body: { items: [{ productId: String(productId), quantity: 1 }], note: `smoke ${this.runId}` },
          });
          const order = this.expect('POST /api/v1/orders', created, 201);
          check(order.status === 'CREATED', `status is ${order.status}`);
          const { headers } = created.response;
          check(headers.get('location') === `/api/v1/orders/${order.orderId}`, 'Location header');
          check(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/.test(headers.get('traceparent') ?? ''), 'traceparent');
          return order.orderId;
        },
        [productId],
      );
      const path = { orderId: String(orderId) };
      const confirmed = await this.step(
        'POST .../confirm confirms it (stock reserved)',
        async () => {
          const order = this.expect(
            'POST .../confirm',
            await client.POST('/api/v1/orders/{orderId}/confirm', { params: { path } }),
            200,
          );
          check(order.status === 'CONFIRMED', `status is ${order.status}`);
        },
        [orderId],
      );
      await this.step(
        'GET /api/v1/orders/{orderId} reads it, and If-None-Match with its ETag gives 304',
        async () => {
          const read = await client.GET('/api/v1/orders/{orderId}', { params: { path } });
          const order = this.expect('GET /api/v1/orders/{orderId}', read, 200);
          check(order.status === 'CONFIRMED', `status is ${order.status}`);
          const etag = read.response.headers.get('etag');
          check(!!etag, 'no ETag');
          // 304 carries no body: the client answers it as a response that is not a problem.
          const status = await client
            .GET('/api/v1/orders/{orderId}', { params: { path, header: { 'If-None-Match': String(etag) } } })
            .then(
              ({ response }) => response.status,
              (error: unknown) =>
                error instanceof UnexpectedResponseError ? error.status : Promise.reject(error),
            );
          check(status === 304, `If-None-Match: expected 304, got ${status}`);
        },
        [orderId, confirmed],
      );
      await this.step(
        'GET /api/v1/orders?q=... lists it (cursor pages)',
        async () => {
          const ids: string[] = [];
          for await (const order of client.orders.all({ q: this.runId, size: 100 })) ids.push(order.orderId);
          check(ids.includes(String(orderId)), `the list holds ${ids.length} orders, not this one`);
        },
        [orderId],
      );

      const attachmentId = await this.step(
        'POST .../attachments uploads a PNG (201, Location)',
        async () => {
          const uploaded = await client.POST('/api/v1/orders/{orderId}/attachments', {
            params: { path },
            body: { file: new File([PNG], 'smoke.png', { type: 'image/png' }), description: 'smoke test' },
          });
          const attachment = this.expect('POST .../attachments', uploaded, 201);
          check(
            uploaded.response.headers.get('location') ===
              `/api/v1/orders/${orderId}/attachments/${attachment.attachmentId}`,
            `Location ${uploaded.response.headers.get('location')}`,
          );
          return attachment.attachmentId;
        },
        [orderId],
      );
      const attachmentPath = { orderId: String(orderId), attachmentId: String(attachmentId) };
      await this.step(
        'GET the attachment downloads the same bytes as image/png',
        async () => {
          const download = await client.GET('/api/v1/orders/{orderId}/attachments/{attachmentId}', {
            params: { path: attachmentPath },
            parseAs: 'arrayBuffer',
          });
          const bytes = Buffer.from(this.expect('GET the attachment', download, 200));
          const type = download.response.headers.get('content-type');
          check(type === 'image/png', `type ${type}`);
          check(bytes.equals(PNG), `${bytes.length} bytes, not the ${PNG.length} uploaded`);
        },
        [attachmentId],
      );
      await this.step(
        'DELETE the attachment (204), then it is 404',
        async () => {
          const attachment = { params: { path: attachmentPath } };
          this.expect(
            'DELETE the attachment',
            await client.DELETE('/api/v1/orders/{orderId}/attachments/{attachmentId}', attachment),
            204,
          );
          this.expectProblem(
            'GET the deleted attachment',
            await client.GET('/api/v1/orders/{orderId}/attachments/{attachmentId}', attachment),
            'ATTACHMENT_NOT_FOUND',
          );
        },
        [attachmentId],
      );

      const wasCancelled = await this.step(
        'POST .../cancel cancels it (stock released)',
        async () => {
          const order = this.expect(
            'POST .../cancel',
            await client.POST('/api/v1/orders/{orderId}/cancel', {
              params: { path },
              body: { reason: 'smoke test' },
            }),
            200,
          );
          check(order.status === 'CANCELLED', `status is ${order.status}`);
        },
        [orderId],
      );
      cancelled = wasCancelled !== undefined;

      const exportId = await this.step(
        'POST /api/v1/customers/{customerId}/export runs to COMPLETED',
        async () => {
          const started = await client.POST('/api/v1/customers/{customerId}/export', {
            params: { path: { customerId: String(me?.userId) } },
            body: { format: 'JSON' },
          });
          const { taskId } = this.expect('POST .../export', started, 202);
          const deadline = Date.now() + this.options.exportTimeoutSeconds * 1000;
          for (;;) {
            const task = this.expect(
              `GET /api/v1/tasks/${taskId}`,
              await client.GET('/api/v1/tasks/{taskId}', { params: { path: { taskId } } }),
              200,
            );
            if (task.status === 'COMPLETED') {
              const match = /^\/api\/v1\/exports\/([^/]+)$/.exec(task.resultUrl ?? '');
              check(!!match, `resultUrl ${task.resultUrl}`);
              return String(match?.[1]);
            }
            if (task.status === 'FAILED' || task.status === 'CANCELLED') {
              throw new SmokeFailure(`task ${taskId} is ${task.status}: ${JSON.stringify(task.error)}`);
            }
            if (Date.now() > deadline) {
              throw new SmokeFailure(
                `task ${taskId} still ${task.status} after ${this.options.exportTimeoutSeconds} s`,
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
          const file = await client.GET('/api/v1/exports/{exportId}', {
            params: { path: { exportId: String(exportId) } },
            parseAs: 'text',
          });
          const text = this.expect('GET the export', file, 200);
          const disposition = file.response.headers.get('content-disposition') ?? '';
          check(/attachment/.test(disposition), 'no Content-Disposition: attachment');
          const orders = JSON.parse(text) as { orderId: string }[];
          check(
            orders.some((o) => o.orderId === orderId),
            `${orders.length} orders, not this one`,
          );
        },
        [exportId],
      );

      await this.step('an unknown order is a Problem Details 404 in ru and in en', async () => {
        const missing = { params: { path: { orderId: randomUUID() } } };
        const problems = [];
        for (const lang of ['ru', 'en'] as const) {
          const answer = await this.clientIn[lang].GET('/api/v1/orders/{orderId}', missing);
          const problem = this.expectProblem(`GET an unknown order (${lang})`, answer, 'ORDER_NOT_FOUND');
          const { headers } = answer.response;
          check(
            (headers.get('content-type') ?? '').startsWith('application/problem+json'),
            `content type ${headers.get('content-type')}`,
          );
          check(
            headers.get('content-language') === lang,
            `Content-Language ${headers.get('content-language')}`,
          );
          check(problem.traceId === headers.get('traceparent'), 'traceId is not the response traceparent');
          problems.push(problem);
        }
        const [ru, en] = problems;
        check(
          ru.problem.title === en.problem.title && ru.problem.type === en.problem.type,
          'title or type differ between languages',
        );
        check(ru.detail !== en.detail, 'detail is the same text in ru and en');
      });

      await this.step(
        'DELETE the cancelled order (204), then it is 404',
        async () => {
          this.expect(
            'DELETE the order',
            await client.DELETE('/api/v1/orders/{orderId}', { params: { path } }),
            204,
          );
          orderGone = true;
          this.expectProblem(
            'GET the deleted order',
            await client.GET('/api/v1/orders/{orderId}', { params: { path } }),
            'ORDER_NOT_FOUND',
          );
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
    const client = this.client;
    const succeeded = (result: Promise<{ error?: unknown }>) =>
      result.then(
        ({ error }) => error === undefined,
        () => false,
      );
    if (orderId && !gone) {
      const path = { orderId };
      if (!cancelled) {
        await succeeded(
          client.POST('/api/v1/orders/{orderId}/cancel', {
            params: { path },
            body: { reason: 'smoke clean-up' },
          }),
        );
      }
      if (!(await succeeded(client.DELETE('/api/v1/orders/{orderId}', { params: { path } })))) {
        leftovers.push(`order ${orderId}`);
      }
    }
    if (productId) {
      const retired = await succeeded(
        client.PATCH('/api/v1/products/{productId}', {
          params: { path: { productId } },
          body: { status: 'DISCONTINUED' },
        }),
      );
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
