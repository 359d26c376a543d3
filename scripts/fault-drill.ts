import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chownSync,
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  WriteStream,
} from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { signAccessToken } from '../src/platform/auth/token-signer';
import { postgresBinaries as embeddedBinaries } from '../src/platform/database/embedded/binaries';

/**
 * `npm run drill:faults`: a fault drill of the built service against a PostgreSQL and a Redis of its own
 * (a private initdb cluster and a private redis-server on free ports in a temporary directory; never the
 * shared servers). Two service processes (replicas) share them; requests alternate between the two. Under a
 * steady load of order creates (each with its own Idempotency-Key), reads, lists and report tasks it stops
 * Redis, then PostgreSQL (fast shutdown), then both (Redis killed, PostgreSQL stopped in immediate mode, i.e.
 * crashed), restarting each, and finally sends SIGTERM under load. It checks what docs/reliability.md
 * promises: 503 problem+json with Retry-After while a needed dependency is down and never a 500 or a hang,
 * /ready 503 while PostgreSQL is down and 200 through a Redis outage (reporting Redis down), /health 200
 * throughout, recovery without a restart, no acknowledged order lost, every accepted task completed (those
 * accepted while Redis was down soon after it is back), one order per Idempotency-Key (retried on either
 * replica), a clean drain, and every ORDER_CREATED event delivered to a webhook receiver and verified
 * once everything is back (WebhookDrill). Then each keyed write kind (create, patch, confirm, items batch, batch create and
 * confirm, a delivery address, a report task) is sent to a process that kills itself right after the write's
 * commit (test/support/crash-after-commit.cjs), and retried with its key on a replica: the first outcome is
 * replayed and the change is there once (its own table).
 * It prints a table per phase and the checks, and exits 1 when one fails. Everything it started is stopped
 * and its directory removed on the way out, also on failure or Ctrl-C (DRILL_KEEP=1 keeps the directory).
 */
const CLIENT_TIMEOUT_MS = 10_000;
/** After a dependency stops, /ready may still answer 200 this long (a probe already in flight). */
const DETECTION_GRACE_MS = 2_000;
/** After /ready is 200 again, business requests may still see a stale connection this long. */
const RECOVERY_GRACE_MS = 3_000;
/** A dependency back must be usable (ready 200 and a create 201) within this long of its restart. */
const RECOVERY_LIMIT_MS = 20_000;
const WORKERS = 4;
/** Service processes on the same PostgreSQL and Redis; requests alternate between them. */
const REPLICAS = 2;
const PAUSE_MS = 30;
const REPORT_EVERY_MS = 2_000;
const TASK_DEADLINE_MS = 80_000;
/** How long after the load the last webhook delivery may take (a retry waits up to 30 s by the default schedule). */
const WEBHOOK_DELIVERY_LIMIT_MS = 90_000;
const SECRET = 'fault-drill-secret-fault-drill-secret-42';
/** Production mode needs a webhook secret key; nothing here stores a webhook secret. */
const WEBHOOK_SECRET_KEY = Buffer.alloc(32, 1).toString('base64');
const ADMIN = '00000000-0000-4000-8000-00000000d000';
const root = path.resolve(__dirname, '..', '..');
/** Preloaded into a service process to kill it right after a request's commit (crash-after-commit step). */
const CRASH_PRELOAD = path.join(root, 'test', 'support', 'crash-after-commit.cjs');

type Dependency = 'redis' | 'postgres';

interface Phase {
  name: string;
  ms: number;
  down: Dependency[];
  /** Runs when the phase begins: stops what `down` names. */
  stop?: () => Promise<void>;
  /** Runs when the phase begins: starts the dependencies again (recovery is timed from its end). */
  restart?: () => Promise<void>;
}

interface Sample {
  phase: string;
  op: string;
  /** Which service process answered (index). */
  replica: number;
  at: number;
  ms: number;
  /** HTTP status, or 0 when no answer came (see `failure`). */
  status: number;
  failure?: 'timeout' | 'network';
  contentType?: string;
  retryAfter?: string;
  code?: string;
  /** /ready only: the state of Redis its body reports. */
  redis?: string;
}

interface Violation {
  check: string;
  detail: string;
}

// ---------------------------------------------------------------------------------------------------------
// Private servers

function log(line: string): void {
  process.stdout.write(`[drill ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The newest PostgreSQL of the system, else the binaries the embedded default runs. */
function postgresBinaries(): string {
  const system = '/usr/lib/postgresql';
  if (existsSync(system)) {
    const versions = readdirSync(system)
      .filter((v) => existsSync(path.join(system, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return path.join(system, versions[0], 'bin');
  }
  // The service's own lookup: it finds the platform's package and makes its library links when missing.
  return path.dirname(embeddedBinaries(undefined).initdb);
}

function osUser(name: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', name]).toString().trim());
    const gid = Number(execFileSync('id', ['-g', name]).toString().trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

class PrivatePostgres {
  readonly dataDir: string;
  private readonly logFile: string;
  private readonly bin = postgresBinaries();
  /** initdb and the server refuse root: then they run as the postgres OS user. */
  private readonly runAs = process.getuid?.() === 0 ? 'postgres' : undefined;

  constructor(
    private readonly dir: string,
    readonly port: number,
  ) {
    this.dataDir = path.join(dir, 'pgdata');
    this.logFile = path.join(dir, 'postgres.log');
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/order_service_drill`;
  }

  private run(tool: string, args: string[]): void {
    const command = path.join(this.bin, tool);
    const [file, argv] = this.runAs
      ? ['runuser', ['-u', this.runAs, '--', command, ...args]]
      : [command, args];
    execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: this.dir });
  }

  async init(): Promise<void> {
    if (this.runAs) {
      const user = osUser(this.runAs);
      if (!user) throw new Error('running as root, and there is no postgres OS user to run PostgreSQL as');
      chownSync(this.dir, user.uid, user.gid);
    }
    this.run('initdb', ['-D', this.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
    await this.start();
    const admin = new Client({ connectionString: this.url.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE order_service_drill');
    await admin.end();
  }

  async start(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      '-c listen_addresses=127.0.0.1',
      `-c unix_socket_directories=${this.dir}`,
      '-c max_connections=40',
      '-c shared_buffers=32MB',
    ].join(' ');
    this.run('pg_ctl', ['-D', this.dataDir, '-l', this.logFile, '-o', options, '-w', '-t', '60', 'start']);
    await waitFor('PostgreSQL accepting connections', () => portOpen(this.port), 10_000);
  }

  /** `fast`: clients disconnected, a clean checkpoint; `immediate`: a crash, recovered from WAL at start. */
  stop(mode: 'fast' | 'immediate'): void {
    this.run('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  stopQuietly(): void {
    try {
      this.stop('immediate');
    } catch {
      // not running
    }
  }
}

class PrivateRedis {
  private child?: ChildProcess;

  constructor(
    private readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    this.child = spawn('redis-server', [...args, '--dir', this.dir], { stdio: 'ignore' });
    await waitFor('Redis accepting connections', () => portOpen(this.port), 10_000);
  }

  /** Stops the server (its data goes with it: no persistence, as a crashed cache-mode Redis). */
  async stop(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}

class Service {
  private child?: ChildProcess;
  private logStream?: WriteStream;
  startedAt = 0;
  pid = 0;

  constructor(
    readonly logFile: string,
    readonly port: number,
  ) {}

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** `crashAfterCommit`: the operations after whose commit the process kills itself (CRASH_PRELOAD). */
  async start(databaseUrl: string, redisUrl: string, crashAfterCommit?: string): Promise<void> {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      PORT: String(this.port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: 'drill',
      JWT_SECRET: SECRET,
      WEBHOOK_SECRET_KEY,
      // The drill's webhook receiver listens on 127.0.0.1 over plain HTTP.
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      RATE_LIMIT_LIMIT: '1000000',
      LOG_LEVEL: 'warn',
      QUEUE_STALLED_JOB_SECONDS: '10',
      CRASH_AFTER_COMMIT: crashAfterCommit ?? '',
    };
    this.logStream = createWriteStream(this.logFile, { flags: 'a' });
    const preload = crashAfterCommit ? ['-r', CRASH_PRELOAD] : [];
    const child = spawn(process.execPath, [...preload, 'dist/src/main.js'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(this.logStream, { end: false });
    child.stderr?.pipe(this.logStream, { end: false });
    this.child = child;
    this.pid = child.pid ?? 0;
    this.startedAt = Date.now();
    await waitFor(
      'the service ready',
      async () => {
        if (!this.running) throw new Error(`the service exited at start; see ${this.logFile}`);
        try {
          return (await fetch(`${this.base}/ready`, { signal: AbortSignal.timeout(2_000) })).status === 200;
        } catch {
          return false;
        }
      },
      60_000,
    );
  }

  /** SIGTERM; resolves with the exit code and how long the exit took. */
  async terminate(): Promise<{ code: number | null; signal: string | null; ms: number }> {
    const child = this.child;
    if (!child || !this.running) return { code: child?.exitCode ?? null, signal: null, ms: 0 };
    const started = Date.now();
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    child.kill('SIGTERM');
    const { code, signal } = await exited;
    return { code, signal, ms: Date.now() - started };
  }

  kill(): void {
    if (this.running) this.child?.kill('SIGKILL');
  }

  /** Resolves with the signal that ended the process (null when it exited by itself). */
  exited(): Promise<string | null> {
    const child = this.child;
    if (!child || !this.running) return Promise.resolve(child?.signalCode ?? null);
    return new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  }

  /** Lines the service wrote that are not one JSON object each. */
  nonJsonLines(): string[] {
    return readFileSync(this.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .filter((line) => {
        try {
          const value: unknown = JSON.parse(line);
          return typeof value !== 'object' || value === null || Array.isArray(value);
        } catch {
          return true;
        }
      });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Load

interface CreateAttempt {
  key: string;
  token: string;
  body: string;
  orderId?: string;
}

class Load {
  readonly samples: Sample[] = [];
  readonly attempts = new Map<string, CreateAttempt>();
  readonly tasks = new Map<string, string>();
  phase = 'start';
  private running = false;
  private loops: Promise<void>[] = [];

  private turn = 0;

  constructor(
    private readonly bases: string[],
    private readonly productId: string,
    private readonly customers: string[],
    private readonly admin: string,
  ) {}

  async request(
    op: string,
    method: string,
    url: string,
    headers: Record<string, string> = {},
    body?: string,
    replica = this.turn++ % this.bases.length,
  ): Promise<{ sample: Sample; json?: Record<string, unknown>; headers?: Headers }> {
    const started = Date.now();
    const sample: Sample = { phase: this.phase, op, replica, at: started, ms: 0, status: 0 };
    try {
      const res = await fetch(`${this.bases[replica]}${url}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body,
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      const text = await res.text();
      sample.status = res.status;
      sample.contentType = res.headers.get('content-type') ?? undefined;
      sample.retryAfter = res.headers.get('retry-after') ?? undefined;
      let json: Record<string, unknown> | undefined;
      try {
        json = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      if (res.status >= 400 && typeof json?.code === 'string') sample.code = json.code;
      if (op === '/ready') sample.redis = redisReported(json);
      sample.ms = Date.now() - started;
      this.samples.push(sample);
      return { sample, json, headers: res.headers };
    } catch (error: unknown) {
      sample.ms = Date.now() - started;
      sample.failure =
        error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
          ? 'timeout'
          : 'network';
      this.samples.push(sample);
      return { sample };
    }
  }

  /** One create with a fresh key; its outcome is remembered for the retries and the database check. */
  async create(token: string): Promise<string | undefined> {
    const key = randomUUID();
    const body = JSON.stringify({
      items: [{ productId: this.productId, quantity: 1 }],
      note: `drill ${key}`,
    });
    const attempt: CreateAttempt = { key, token, body };
    this.attempts.set(key, attempt);
    const { sample, json } = await this.send('create', attempt);
    if (sample.status === 201 && typeof json?.orderId === 'string') attempt.orderId = json.orderId;
    return attempt.orderId;
  }

  /** A create as `attempt` describes it: its caller, key and body (sent again for retries and replays). */
  send(op: string, attempt: CreateAttempt): ReturnType<Load['request']> {
    const headers = { authorization: `Bearer ${attempt.token}`, 'idempotency-key': attempt.key };
    return this.request(op, 'POST', '/api/v1/orders', headers, attempt.body);
  }

  start(): void {
    this.running = true;
    this.loops = [
      ...this.customers.map((token) => this.customerLoop(token)),
      this.probeLoop(),
      this.reportLoop(),
    ];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async customerLoop(token: string): Promise<void> {
    const auth = { authorization: `Bearer ${token}` };
    let last: string | undefined;
    for (let n = 0; this.running; n++) {
      last = (await this.create(token)) ?? last;
      if (last) await this.request('read', 'GET', `/api/v1/orders/${last}`, auth);
      if (n % 3 === 0) await this.request('list', 'GET', '/api/v1/orders?size=5', auth);
      await sleep(PAUSE_MS);
    }
  }

  private async probeLoop(): Promise<void> {
    while (this.running) {
      await Promise.all(
        this.bases.flatMap((_, replica) => [
          this.request('/health', 'GET', '/health', {}, undefined, replica),
          this.request('/ready', 'GET', '/ready', {}, undefined, replica),
        ]),
      );
      await sleep(200);
    }
  }

  private async reportLoop(): Promise<void> {
    const today = new Date().toISOString().slice(0, 10);
    const body = JSON.stringify({ dateFrom: today, dateTo: today });
    while (this.running) {
      const { sample, json } = await this.request(
        'report',
        'POST',
        '/api/v1/reports/generate',
        { authorization: `Bearer ${this.admin}`, 'idempotency-key': randomUUID() },
        body,
      );
      if (sample.status === 202 && typeof json?.taskId === 'string')
        this.tasks.set(json.taskId, sample.phase);
      await sleep(REPORT_EVERY_MS);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Checks

const BUSINESS_OPS = new Set(['create', 'read', 'list', 'report']);
const SUCCESS: Record<string, number> = { create: 201, read: 200, list: 200, report: 202 };

interface Window {
  phase: string;
  down: Dependency[];
  start: number;
  end: number;
  /** The dependency's restart, for the recovery phase after an outage. */
  restartedAt?: number;
}

/**
 * Whether a request's answer came before its phase ended: one still running when the next outage began
 * (sent to a healthy service, answered 503 because the next stop broke it) belongs to that outage.
 */
function endedWithin(s: Sample, w: Window): boolean {
  return s.at + s.ms <= w.end;
}

function describeSample(s: Sample): string {
  const answer = s.failure ?? `${s.status} ${s.code ?? ''} ${s.contentType ?? ''}`.trim();
  const at = new Date(s.at).toISOString().slice(11, 23);
  return `${s.op} to replica ${s.replica + 1} at ${at} in ${s.phase}, ${s.ms} ms: ${answer}`;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function checkSamples(samples: Sample[], windows: Window[], violations: Violation[]): void {
  const add = (check: string, s: Sample) => violations.push({ check, detail: describeSample(s) });
  for (const s of samples) {
    const window = windows.find((w) => w.phase === s.phase);
    // Once SIGTERM closed the listener, a refused or closed connection is the expected answer.
    if (s.failure === 'network' && s.phase === 'shutdown') continue;
    if (s.failure) {
      add(s.failure === 'timeout' ? `no answer within ${CLIENT_TIMEOUT_MS / 1000} s` : 'no answer', s);
      continue;
    }
    if (s.status >= 500 && s.status !== 503) add('no 5xx but 503', s);
    if (s.op === '/health' && s.status !== 200 && s.phase !== 'shutdown') add('/health 200 throughout', s);
    if (s.status === 503 && s.op !== '/health') {
      if (!s.contentType?.startsWith('application/problem+json') || s.code !== 'SERVICE_UNAVAILABLE')
        add('503 is problem+json SERVICE_UNAVAILABLE', s);
      if (BUSINESS_OPS.has(s.op) && !/^\d+$/.test(s.retryAfter ?? '')) add('503 carries Retry-After', s);
    }
    if (!BUSINESS_OPS.has(s.op) || !window) continue;
    const ok = s.status === SUCCESS[s.op];
    if (ok || s.phase === 'shutdown') continue;
    if (s.status !== 503) {
      add('business answers are their success or 503', s);
    } else if (window.down.length === 0 && !window.restartedAt && endedWithin(s, window)) {
      add('no 503 while every dependency is up', s);
    } else if (window.down.length === 1 && window.down[0] === 'redis') {
      add('Redis down: business requests still served (PostgreSQL holds them)', s);
    }
  }
}

/** The state of Redis a /ready body reports: `details` of a 200, `checks` of a 503. */
function redisReported(json: Record<string, unknown> | undefined): string | undefined {
  const checks = (json?.details ?? json?.checks) as Record<string, { status?: string }> | undefined;
  return checks?.redis?.status;
}

function checkReadiness(samples: Sample[], windows: Window[], violations: Violation[]): void {
  for (const w of windows) {
    const ready = samples.filter((s) => s.op === '/ready' && s.phase === w.phase && !s.failure);
    const detected = (s: Sample) => s.at >= w.start + DETECTION_GRACE_MS && endedWithin(s, w);
    if (w.down.includes('postgres')) {
      for (const s of ready.filter((s) => detected(s) && s.status !== 503))
        violations.push({ check: '/ready 503 while PostgreSQL is down', detail: describeSample(s) });
      if (!ready.some((s) => s.status === 503))
        violations.push({ check: '/ready 503 while PostgreSQL is down', detail: `${w.phase}: never 503` });
    } else if (w.down.includes('redis')) {
      for (const s of ready.filter((s) => endedWithin(s, w) && s.status !== 200))
        violations.push({ check: '/ready 200 while only Redis is down', detail: describeSample(s) });
      for (const s of ready.filter((s) => detected(s) && s.redis !== 'down'))
        violations.push({ check: '/ready reports Redis down', detail: describeSample(s) });
    }
    if (w.restartedAt !== undefined) {
      // Recovered: ready, and Redis reported up again (through a Redis outage /ready never left 200).
      const firstReady = ready.find((s) => s.status === 200 && s.redis === 'up');
      const firstCreate = samples.find((s) => s.phase === w.phase && s.op === 'create' && s.status === 201);
      if (!firstReady || firstReady.at - w.restartedAt > RECOVERY_LIMIT_MS)
        violations.push({ check: 'recovery without restart', detail: `${w.phase}: /ready not 200 in time` });
      if (!firstCreate || firstCreate.at - w.restartedAt > RECOVERY_LIMIT_MS)
        violations.push({ check: 'recovery without restart', detail: `${w.phase}: no create 201 in time` });
      const settled = (firstReady?.at ?? w.end) + RECOVERY_GRACE_MS;
      for (const s of samples) {
        if (s.phase !== w.phase || s.at < settled || !endedWithin(s, w) || s.failure) continue;
        const expected = BUSINESS_OPS.has(s.op) ? SUCCESS[s.op] : 200;
        if (s.status !== expected)
          violations.push({ check: 'all served once recovered', detail: describeSample(s) });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// The drill

async function main(): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'order-service-drill-'));
  const pg = new PrivatePostgres(dir, await freePort());
  const redisDir = path.join(dir, 'redis');
  mkdirSync(redisDir);
  const redis = new PrivateRedis(redisDir, await freePort());
  const services: Service[] = [];
  for (let n = 1; n <= REPLICAS; n++)
    services.push(new Service(path.join(dir, `service-${n}.log`), await freePort()));
  const crasher = new Service(path.join(dir, 'killed-after-commit.log'), await freePort());
  let cleaned = false;
  const cleanUp = async () => {
    if (cleaned) return;
    cleaned = true;
    for (const service of [...services, crasher]) service.kill();
    await redis.stop('SIGKILL');
    pg.stopQuietly();
    if (process.env.DRILL_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
  };
  const interrupted = () => {
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  let code = 1;
  try {
    code = await drill(pg, redis, services, crasher);
    return code;
  } finally {
    for (const service of services) {
      if (code === 0 || !existsSync(service.logFile)) continue;
      const kept = path.join(tmpdir(), `order-service-drill-${Date.now()}-${path.basename(service.logFile)}`);
      copyFileSync(service.logFile, kept);
      log(`a service's log is kept in ${kept}`);
    }
    await cleanUp();
    log(process.env.DRILL_KEEP === '1' ? `kept ${dir}` : 'private servers stopped, directory removed');
  }
}

async function drill(
  pg: PrivatePostgres,
  redis: PrivateRedis,
  services: Service[],
  crasher: Service,
): Promise<number> {
  const began = Date.now();
  log(`private PostgreSQL on 127.0.0.1:${pg.port}, Redis on 127.0.0.1:${redis.port}`);
  await pg.init();
  await redis.start();
  for (const service of services) {
    await service.start(pg.url, redis.url);
    log(`service pid ${service.pid} on ${service.base}, ready in ${Date.now() - service.startedAt} ms`);
  }

  const admin = await signAccessToken(SECRET, { sub: ADMIN, roles: ['ADMIN'] });
  const customers = await Promise.all(
    Array.from({ length: WORKERS }, (_, i) =>
      signAccessToken(SECRET, {
        sub: `00000000-0000-4000-8000-00000000c${String(i + 1).padStart(3, '0')}`,
        roles: ['CUSTOMER'],
      }),
    ),
  );
  const product = await fetch(`${services[0].base}/api/v1/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Drill product', price: 10.5, stock: 100_000_000, status: 'ACTIVE' }),
  });
  const productBody = (await product.json()) as { productId?: string };
  if (product.status !== 201 || !productBody.productId)
    throw new Error(`creating the product: ${product.status} ${JSON.stringify(productBody)}`);

  const webhooks = await WebhookDrill.start(services[0].base, admin);
  const load = new Load(
    services.map((service) => service.base),
    productBody.productId,
    customers,
    admin,
  );
  const phases: Phase[] = [
    { name: 'baseline', ms: 6_000, down: [] },
    { name: 'redis down', ms: 10_000, down: ['redis'], stop: () => redis.stop('SIGTERM') },
    { name: 'redis back', ms: 8_000, down: [], restart: () => redis.start() },
    { name: 'postgres down', ms: 10_000, down: ['postgres'], stop: async () => pg.stop('fast') },
    { name: 'postgres back', ms: 10_000, down: [], restart: () => pg.start() },
    {
      name: 'both down',
      ms: 8_000,
      down: ['redis', 'postgres'],
      stop: async () => {
        await redis.stop('SIGKILL');
        pg.stop('immediate');
      },
    },
    {
      name: 'both back',
      ms: 10_000,
      down: [],
      restart: async () => {
        await Promise.all([redis.start(), pg.start()]);
      },
    },
  ];

  const windows: Window[] = [];
  load.phase = phases[0].name;
  load.start();
  for (const phase of phases) {
    log(`phase "${phase.name}" (${phase.ms / 1000} s)`);
    const start = Date.now();
    load.phase = phase.name;
    await phase.stop?.();
    await phase.restart?.();
    const restartedAt = phase.restart ? Date.now() : undefined;
    await sleep(Math.max(0, phase.ms - (Date.now() - start)));
    windows.push({ phase: phase.name, down: phase.down, start, end: Date.now(), restartedAt });
  }
  await load.stop();
  const violations: Violation[] = [];
  for (const service of services.filter((s) => !s.running))
    violations.push({
      check: 'recovery without restart',
      detail: `the service (pid ${service.pid}) is gone`,
    });

  // Keys whose create got no 201: the same request again must create exactly one order, or replay it.
  load.phase = 'retries';
  const pending = [...load.attempts.values()].filter((a) => !a.orderId);
  log(`retrying ${pending.length} unacknowledged creates with their Idempotency-Key`);
  const retryOutcomes: Record<string, number> = {};
  const retry = async (attempt: CreateAttempt): Promise<void> => {
    for (let round = 0; ; round++) {
      const { sample, json, headers } = await load.send('retry', attempt);
      if (sample.code === 'IDEMPOTENCY_KEY_IN_PROGRESS' && round < 80) {
        await sleep(1_000);
        continue;
      }
      const replay = headers?.get('idempotent-replayed') === 'true' ? ' replayed' : '';
      const label = `${sample.status || sample.failure}${sample.code ? ` ${sample.code}` : ''}${replay}`;
      retryOutcomes[label] = (retryOutcomes[label] ?? 0) + 1;
      if (sample.status === 201 && typeof json?.orderId === 'string') attempt.orderId = json.orderId;
      else violations.push({ check: 'a retried key creates its order', detail: describeSample(sample) });
      return;
    }
  };
  const queue = [...pending];
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await retry(next);
    }),
  );
  // Acknowledged keys replay the same order.
  const acknowledged = [...load.attempts.values()].filter((a) => a.orderId && !pending.includes(a));
  let replayed = 0;
  for (const attempt of acknowledged.filter((_, i) => i % 10 === 0).slice(0, 40)) {
    const { sample, json, headers } = await load.send('replay', attempt);
    if (
      sample.status === 201 &&
      json?.orderId === attempt.orderId &&
      headers?.get('idempotent-replayed') === 'true'
    )
      replayed += 1;
    else violations.push({ check: 'an acknowledged key replays its order', detail: describeSample(sample) });
  }

  // Tasks accepted (202) must finish, whatever happened to Redis meanwhile (the task row is the truth).
  const accepted = [...load.tasks.keys()];
  log(`waiting for ${accepted.length} accepted report tasks to finish`);
  const finishedTasks = await waitForTasks(load, accepted, admin);
  const taskStates = countBy(finishedTasks.values(), (task) => task.status);

  // Webhooks: every order event recorded through the outages is delivered, now that everything is back.
  log('waiting for the webhook deliveries of the order events');
  const webhookSummary = await webhooks.check(pg.url, violations);
  webhooks.close();

  // Keyed writes killed right after their commit, retried on a replica: the first outcome, one change.
  log('killing a service process right after the commit of each keyed write, retrying on a replica');
  const crashRows = await crashAfterCommit(
    pg,
    redis,
    services[0],
    crasher,
    admin,
    customers[0],
    productBody.productId,
    violations,
  );

  // SIGTERM under load: in-flight requests end, the process exits 0 well within its 30 s hard stop.
  load.phase = 'shutdown';
  load.start();
  await sleep(1_000);
  const shutdowns = await Promise.all(services.map((service) => service.terminate()));
  await load.stop();
  for (const shutdown of shutdowns.filter((s) => s.code !== 0 || s.ms > 30_000))
    violations.push({
      check: 'SIGTERM drains and exits 0',
      detail: `exit ${shutdown.code ?? shutdown.signal} after ${shutdown.ms} ms`,
    });
  const nonJson = services.flatMap((service) => service.nonJsonLines());
  if (nonJson.length > 0)
    violations.push({
      check: 'every log line is JSON',
      detail: `${nonJson.length} lines, e.g. ${nonJson[0]}`,
    });

  checkSamples(load.samples, windows, violations);
  checkReadiness(load.samples, windows, violations);

  // The database: every acknowledged order is there, and no key made more than one order.
  const db = new Client({ connectionString: pg.url });
  await db.connect();
  const { rows } = await db.query<{ note: string; ids: string[]; items: number }>(
    `SELECT o.note, array_agg(o.order_id::text) AS ids, sum((SELECT count(*) FROM order_items i
            WHERE i.order_id = o.order_id))::int AS items
       FROM orders o WHERE o.note LIKE 'drill %' GROUP BY o.note`,
  );
  await db.end();
  const byKey = new Map(rows.map((r) => [r.note.slice('drill '.length), r]));
  let lost = 0;
  let duplicates = 0;
  for (const attempt of load.attempts.values()) {
    const row = byKey.get(attempt.key);
    if (row && row.ids.length > 1) {
      duplicates += 1;
      violations.push({
        check: 'one order per Idempotency-Key',
        detail: `${attempt.key}: ${row.ids.join(', ')}`,
      });
    }
    if (attempt.orderId && (!row || !row.ids.includes(attempt.orderId) || row.items !== row.ids.length)) {
      lost += 1;
      violations.push({ check: 'no acknowledged order lost', detail: `${attempt.key} → ${attempt.orderId}` });
    }
  }
  const unknownKeys = rows.filter((r) => !load.attempts.has(r.note.slice('drill '.length))).length;
  if (unknownKeys > 0)
    violations.push({
      check: 'one order per Idempotency-Key',
      detail: `${unknownKeys} orders of no key sent`,
    });

  printSummary(load.samples, windows);
  printCrashTable(crashRows);
  const acknowledgedCount = [...load.attempts.values()].filter((a) => a.orderId).length;
  const unfinished = Object.entries(taskStates).filter(([state]) => state !== 'COMPLETED');
  for (const [state, count] of unfinished)
    violations.push({ check: 'accepted tasks finish', detail: `${count} tasks ${state}` });
  // Accepted while Redis was away (never queued then): run within moments of its return, not at the next
  // reconcile. `completedAt` has whole seconds.
  const redisBack = windows.find((w) => w.phase === 'redis back')?.restartedAt ?? 0;
  const duringRedisOutage = [...finishedTasks].filter(([taskId]) => load.tasks.get(taskId) === 'redis down');
  const secondsAfterRedisBack = duringRedisOutage.map(([, task]) =>
    task.completedAt ? (Date.parse(task.completedAt) - redisBack) / 1000 : Number.POSITIVE_INFINITY,
  );
  for (const [index, seconds] of secondsAfterRedisBack.entries())
    if (seconds > RECOVERY_LIMIT_MS / 1000)
      violations.push({
        check: 'tasks accepted while Redis was down run once it is back',
        detail: `${duringRedisOutage[index][0]}: ${duringRedisOutage[index][1].status}, ${seconds} s after Redis was back`,
      });
  if (duringRedisOutage.length === 0)
    violations.push({
      check: 'tasks accepted while Redis was down run once it is back',
      detail: 'no task was accepted while Redis was down',
    });
  log('');
  log(
    `creates: ${load.attempts.size} keys, ${acknowledgedCount} acknowledged (201) in the end, ` +
      `${pending.length} retried after recovery (${formatCounts(retryOutcomes)}), ${replayed} replays checked`,
  );
  log(
    `database: ${rows.length} drill orders, ${lost} acknowledged missing, ${duplicates} keys with more than one`,
  );
  log(`report tasks accepted before the shutdown: ${accepted.length} (${formatCounts(taskStates)})`);
  // `completedAt` has whole seconds: the last one completed less than a second after this.
  const lastAfterRedisBack = Math.max(0, Math.ceil(Math.max(...secondsAfterRedisBack)));
  log(
    `of them accepted while Redis was down: ${duringRedisOutage.length}, all completed within ` +
      `${lastAfterRedisBack + 1} s of its return`,
  );
  log(
    `shutdown under load: ${shutdowns.map((s) => `exit ${s.code ?? s.signal} after ${s.ms} ms`).join(', ')}; ` +
      `log lines not JSON: ${nonJson.length}`,
  );
  log(webhookSummary);
  log(`total ${((Date.now() - began) / 1000).toFixed(0)} s`);
  printChecks(violations);
  return violations.length === 0 ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------------------
// Killed right after a commit

/** A keyed write the crash step sends; `effect` reads what it changed, `expected` what one run changes. */
interface CrashCase {
  name: string;
  /** Method and route pattern, as the crash preload names operations. */
  operation: string;
  method: 'POST' | 'PATCH';
  path: string;
  token: string;
  body: unknown;
  status: number;
  effect: (db: Client) => Promise<number>;
  expected: number;
}

interface CrashRow {
  name: string;
  killed: string;
  key: string;
  retry: string;
  change: string;
}

/**
 * For each keyed write: a service process that kills itself (SIGKILL) right after the write's transaction
 * committed, before its answer leaves, gets the request; the client's retry with the same key goes to a
 * surviving replica, which must replay the first outcome (`Idempotent-Replayed: true`) while the change is
 * there exactly once (docs/decisions/0100-exactly-once-request-unit-of-work.md).
 */
async function crashAfterCommit(
  pg: PrivatePostgres,
  redis: PrivateRedis,
  survivor: Service,
  crasher: Service,
  admin: string,
  customer: string,
  productId: string,
  violations: Violation[],
): Promise<CrashRow[]> {
  const db = new Client({ connectionString: pg.url });
  await db.connect();
  const call = async (method: string, url: string, token: string, body?: unknown, key?: string) => {
    const res = await fetch(`${survivor.base}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined
          ? {}
          : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }),
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    return {
      status: res.status,
      headers: res.headers,
      json: (await res.json().catch(() => ({}))) as Record<string, unknown>,
    };
  };
  const newOrder = async () => {
    const created = await call(
      'POST',
      '/api/v1/orders',
      customer,
      { items: [{ productId, quantity: 2 }] },
      randomUUID(),
    );
    if (created.status !== 201) throw new Error(`crash step: creating an order: ${created.status}`);
    return String(created.json.orderId);
  };
  const count = async (sql: string, values: unknown[]) =>
    (await db.query<{ n: number }>(sql, values)).rows[0].n;
  const version = (orderId: string) =>
    count('SELECT version AS n FROM orders WHERE order_id = $1', [orderId]);
  const stock = () => count('SELECT stock AS n FROM products WHERE product_id = $1', [productId]);

  const note = `crash ${randomUUID()}`;
  const [toPatch, toConfirm, toExtend, firstOfBatch, secondOfBatch] = await Promise.all(
    Array.from({ length: 5 }, newOrder),
  );
  const batchCustomer = `00000000-0000-4000-8000-${randomUUID().slice(-12)}`;
  const batchToken = await signAccessToken(SECRET, { sub: batchCustomer, roles: ['CUSTOMER'] });
  const addressOwner = `00000000-0000-4000-8000-${randomUUID().slice(-12)}`;
  const addressToken = await signAccessToken(SECRET, { sub: addressOwner, roles: ['CUSTOMER'] });
  const reporter = `00000000-0000-4000-8000-${randomUUID().slice(-12)}`;
  const reporterToken = await signAccessToken(SECRET, { sub: reporter, roles: ['ADMIN'] });
  const today = new Date().toISOString().slice(0, 10);
  const stockBefore = await stock();
  const versions = new Map<string, number>();
  for (const orderId of [toPatch, toConfirm, toExtend, firstOfBatch, secondOfBatch])
    versions.set(orderId, await version(orderId));
  const cases: CrashCase[] = [
    {
      name: 'create an order',
      operation: 'POST /api/v1/orders',
      method: 'POST',
      path: '/api/v1/orders',
      token: customer,
      body: { items: [{ productId, quantity: 1 }], note },
      status: 201,
      effect: () => count('SELECT count(*)::int AS n FROM orders WHERE note = $1', [note]),
      expected: 1,
    },
    {
      name: 'patch an order',
      operation: 'PATCH /api/v1/orders/:orderId',
      method: 'PATCH',
      path: `/api/v1/orders/${toPatch}`,
      token: customer,
      body: { note: 'patched' },
      status: 200,
      effect: async () => (await version(toPatch)) - (versions.get(toPatch) ?? 0),
      expected: 1,
    },
    {
      name: 'confirm an order (reserves stock)',
      operation: 'POST /api/v1/orders/:orderId/confirm',
      method: 'POST',
      path: `/api/v1/orders/${toConfirm}/confirm`,
      token: customer,
      body: undefined,
      status: 200,
      effect: async () => stockBefore - (await stock()),
      expected: 2,
    },
    {
      name: 'add lines (items batch)',
      operation: 'POST /api/v1/orders/:orderId/items/batch',
      method: 'POST',
      path: `/api/v1/orders/${toExtend}/items/batch`,
      token: customer,
      body: {
        items: [
          { productId, quantity: 1 },
          { productId, quantity: 1 },
        ],
      },
      status: 200,
      effect: () => count('SELECT count(*)::int - 1 AS n FROM order_items WHERE order_id = $1', [toExtend]),
      expected: 2,
    },
    {
      name: 'batch create',
      operation: 'POST /api/v1/orders/batch',
      method: 'POST',
      path: '/api/v1/orders/batch',
      token: batchToken,
      body: {
        items: [
          { productId, quantity: 1 },
          { productId, quantity: 3 },
        ],
      },
      status: 200,
      effect: () => count('SELECT count(*)::int AS n FROM orders WHERE customer_id = $1', [batchCustomer]),
      expected: 2,
    },
    {
      name: 'batch confirm',
      operation: 'POST /api/v1/orders/batch/confirm',
      method: 'POST',
      path: '/api/v1/orders/batch/confirm',
      token: customer,
      body: { items: [{ orderId: firstOfBatch }, { orderId: secondOfBatch }] },
      status: 200,
      effect: async () =>
        (await version(firstOfBatch)) -
        (versions.get(firstOfBatch) ?? 0) +
        (await version(secondOfBatch)) -
        (versions.get(secondOfBatch) ?? 0),
      expected: 2,
    },
    {
      name: 'add a delivery address',
      operation: 'POST /api/v1/delivery-addresses',
      method: 'POST',
      path: '/api/v1/delivery-addresses',
      token: addressToken,
      body: { streetName: 'Drill street 1', zipCode: '101000' },
      status: 201,
      effect: () =>
        count('SELECT count(*)::int AS n FROM delivery_addresses WHERE user_id = $1', [addressOwner]),
      expected: 1,
    },
    {
      name: 'start a report task',
      operation: 'POST /api/v1/reports/generate',
      method: 'POST',
      path: '/api/v1/reports/generate',
      token: reporterToken,
      body: { dateFrom: today, dateTo: today },
      status: 202,
      effect: () => count('SELECT count(*)::int AS n FROM tasks WHERE owner_id = $1', [reporter]),
      expected: 1,
    },
  ];

  const rows: CrashRow[] = [];
  for (const c of cases) {
    const key = randomUUID();
    const fail = (detail: string) =>
      violations.push({
        check: 'a write killed after its commit applies once',
        detail: `${c.name}: ${detail}`,
      });
    await crasher.start(pg.url, redis.url, c.operation);
    const died = crasher.exited();
    const first = await fetch(`${crasher.base}${c.path}`, {
      method: c.method,
      headers: {
        authorization: `Bearer ${c.token}`,
        'idempotency-key': key,
        ...(c.body === undefined
          ? {}
          : { 'content-type': c.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }),
      },
      body: c.body === undefined ? undefined : JSON.stringify(c.body),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    }).then(
      (res) => `${res.status}`,
      () => 'no answer',
    );
    const signal = await died;
    const killed = `${signal ?? 'exited'}, client: ${first}`;
    if (signal !== 'SIGKILL' || first !== 'no answer') fail(`not killed after its commit (${killed})`);
    const { rows: keyRows } = await db.query<{ state: string; status: number | null }>(
      'SELECT state, response_status AS status FROM idempotency_keys WHERE idempotency_key = $1',
      [key],
    );
    const keyState = keyRows[0] ? `${keyRows[0].state} ${keyRows[0].status ?? ''}`.trim() : 'none';
    if (keyState !== `COMPLETED ${c.status}`) fail(`key ${keyState} after the crash`);
    const retry = await call(c.method, c.path, c.token, c.body, key);
    const replayed = retry.headers.get('idempotent-replayed') === 'true';
    if (retry.status !== c.status || !replayed) fail(`retry ${retry.status}${replayed ? ' replayed' : ''}`);
    const applied = await c.effect(db);
    if (applied !== c.expected) fail(`changed ${applied}, one run changes ${c.expected}`);
    rows.push({
      name: c.name,
      killed,
      key: keyState,
      retry: `${retry.status}${replayed ? ' replayed' : ''}`,
      change: `${applied} (one run: ${c.expected})`,
    });
  }
  // The task accepted by the killed process runs, once: queued by a process's start or the reconciler.
  const deadline = Date.now() + TASK_DEADLINE_MS;
  let task: { status: string; attempts: number } | undefined;
  for (;;) {
    [task] = (
      await db.query<{ status: string; attempts: number }>(
        'SELECT status, attempts FROM tasks WHERE owner_id = $1',
        [reporter],
      )
    ).rows;
    if (task?.status === 'COMPLETED' || Date.now() > deadline) break;
    await sleep(500);
  }
  const report = rows.find((r) => r.name === 'start a report task');
  if (report) report.change += `, task ${task?.status ?? 'missing'} after ${task?.attempts ?? 0} run(s)`;
  if (task?.status !== 'COMPLETED' || task.attempts !== 1)
    violations.push({
      check: 'a write killed after its commit applies once',
      detail: `the report task: ${task?.status ?? 'missing'} after ${task?.attempts ?? 0} runs`,
    });
  await db.end();
  return rows;
}

function printCrashTable(rows: CrashRow[]): void {
  const header: CrashRow = {
    name: 'keyed write',
    killed: 'process (after the commit)',
    key: 'key after the crash',
    retry: 'retry on a replica',
    change: 'change applied',
  };
  const all = [header, ...rows];
  const columns = Object.keys(header) as Array<keyof CrashRow>;
  const widths = columns.map((c) => Math.max(...all.map((r) => r[c].length)));
  log('');
  for (const [n, row] of all.entries()) {
    log(
      columns
        .map((c, i) => row[c].padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
    if (n === 0) log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

interface FinishedTask {
  status: string;
  completedAt?: string;
}

/** Each task as it ended (or as it was at the deadline), by id. */
async function waitForTasks(
  load: Load,
  taskIds: string[],
  admin: string,
): Promise<Map<string, FinishedTask>> {
  const deadline = Date.now() + TASK_DEADLINE_MS;
  const tasks = new Map<string, FinishedTask>();
  const ended = (taskId: string) =>
    ['COMPLETED', 'FAILED', 'CANCELLED'].includes(tasks.get(taskId)?.status ?? '');
  for (;;) {
    for (const taskId of taskIds) {
      if (ended(taskId)) continue;
      const { json } = await load.request('task', 'GET', `/api/v1/tasks/${taskId}`, {
        authorization: `Bearer ${admin}`,
      });
      tasks.set(taskId, {
        status: typeof json?.status === 'string' ? json.status : 'UNKNOWN',
        completedAt: typeof json?.completedAt === 'string' ? json.completedAt : undefined,
      });
    }
    if (taskIds.every(ended) || Date.now() > deadline) break;
    await sleep(2_000);
  }
  return tasks;
}

function countBy<T>(items: Iterable<T>, key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k}: ${v}`).join(', ');
}

/** After a restart: how long until /ready was 200 and a create was 201 again. */
function recovery(samples: Sample[], w: Window): string {
  if (w.restartedAt === undefined) return '';
  const after = (op: string, status: number) => {
    const first = samples.find(
      (s) =>
        s.phase === w.phase && s.op === op && s.status === status && (op !== '/ready' || s.redis === 'up'),
    );
    return first ? `${(Math.max(0, first.at - (w.restartedAt ?? 0)) / 1000).toFixed(1)} s` : 'never';
  };
  return `ready ${after('/ready', 200)}, create ${after('create', 201)}`;
}

function printSummary(samples: Sample[], windows: Window[]): void {
  const header = [
    'phase',
    's',
    'requests',
    '2xx',
    '503',
    'other',
    'no answer',
    'p50 ms',
    'max ms',
    'recovered',
    '/ready',
    '/health',
  ];
  const rows: string[][] = [header];
  for (const w of windows) {
    const business = samples.filter((s) => s.phase === w.phase && BUSINESS_OPS.has(s.op));
    const probes = (op: string) =>
      formatCounts(
        samples
          .filter((s) => s.phase === w.phase && s.op === op)
          .reduce<Record<string, number>>((acc, s) => {
            const k = `${s.status || s.failure}${s.redis === 'down' ? ' (Redis down)' : ''}`;
            acc[k] = (acc[k] ?? 0) + 1;
            return acc;
          }, {}),
      );
    const ms = business.map((s) => s.ms);
    rows.push([
      w.phase,
      ((w.end - w.start) / 1000).toFixed(0),
      String(business.length),
      String(business.filter((s) => s.status >= 200 && s.status < 300).length),
      String(business.filter((s) => s.status === 503).length),
      String(
        business.filter((s) => s.status && !(s.status >= 200 && s.status < 300) && s.status !== 503).length,
      ),
      String(business.filter((s) => s.failure).length),
      String(percentile(ms, 50)),
      String(Math.max(0, ...ms)),
      recovery(samples, w),
      probes('/ready'),
      probes('/health'),
    ]);
  }
  const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  log('');
  for (const [n, row] of rows.entries()) {
    log(
      row
        .map((cell, i) => (i === 0 || i >= 10 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
        .join('  '),
    );
    if (n === 0) log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  const slowest = windows.map((w) =>
    samples
      .filter((s) => s.phase === w.phase && BUSINESS_OPS.has(s.op))
      .reduce<Sample | undefined>((max, s) => (max && max.ms >= s.ms ? max : s), undefined),
  );
  log(
    `slowest business request of each phase: ${slowest.map((s) => (s ? `${s.op} ${s.ms} ms` : '-')).join(', ')}`,
  );
}

function printChecks(violations: Violation[]): void {
  const checks = [
    `no answer within ${CLIENT_TIMEOUT_MS / 1000} s`,
    'no answer',
    'no 5xx but 503',
    '503 is problem+json SERVICE_UNAVAILABLE',
    '503 carries Retry-After',
    'business answers are their success or 503',
    'no 503 while every dependency is up',
    'Redis down: business requests still served (PostgreSQL holds them)',
    '/health 200 throughout',
    '/ready 503 while PostgreSQL is down',
    '/ready 200 while only Redis is down',
    '/ready reports Redis down',
    'recovery without restart',
    'all served once recovered',
    'no acknowledged order lost',
    'one order per Idempotency-Key',
    'a retried key creates its order',
    'an acknowledged key replays its order',
    'accepted tasks finish',
    'tasks accepted while Redis was down run once it is back',
    'a write killed after its commit applies once',
    'SIGTERM drains and exits 0',
    'every log line is JSON',
    ...WebhookDrill.CHECKS,
  ];
  log('');
  for (const check of checks) {
    const failed = violations.filter((v) => v.check === check);
    log(`${failed.length === 0 ? 'PASS' : 'FAIL'}  ${check}${failed.length ? ` (${failed.length})` : ''}`);
    for (const v of failed.slice(0, 5)) log(`        ${v.detail}`);
  }
  log(violations.length === 0 ? 'all checks passed' : `${violations.length} violations`);
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(
        `fault drill failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      process.exit(1);
    },
  );
}

/**
 * The webhook part of the drill: an endpoint subscribed to ORDER_CREATED, to a receiver in this process that
 * verifies each delivery with the `standardwebhooks` package, as a customer's would. The load's creates go on
 * through every outage; once the services are back, every order event recorded after the endpoint was
 * created must have reached the receiver, verified (at least once, so repeats are counted, not refused).
 */
class WebhookDrill {
  static readonly CHECKS = ['every event is delivered after the outages', 'every delivery verifies'];
  /** Deliveries received and verified, by webhook-id. */
  private readonly received = new Map<string, number>();
  /** Deliveries that did not verify. */
  private forged = 0;
  private readonly server: http.Server;

  private constructor(
    private readonly endpointId: string,
    private readonly createdAt: string,
    secret: string,
  ) {
    const verifier = new Webhook(secret);
    this.server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          verifier.verify(Buffer.concat(chunks).toString('utf8'), request.headers as Record<string, string>);
        } catch {
          this.forged += 1;
          response.writeHead(400).end();
          return;
        }
        const id = String(request.headers['webhook-id']);
        this.received.set(id, (this.received.get(id) ?? 0) + 1);
        response.writeHead(204).end();
      });
    });
  }

  static async start(base: string, admin: string): Promise<WebhookDrill> {
    const port = await freePort();
    const res = await fetch(`${base}/api/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/drill`, eventTypes: ['ORDER_CREATED'] }),
    });
    const endpoint = (await res.json()) as {
      webhookEndpointId?: string;
      secret?: string;
      createdAt?: string;
    };
    if (res.status !== 201 || !endpoint.webhookEndpointId || !endpoint.secret || !endpoint.createdAt)
      throw new Error(`creating the webhook endpoint: ${res.status} ${JSON.stringify(endpoint)}`);
    const drill = new WebhookDrill(endpoint.webhookEndpointId, endpoint.createdAt, endpoint.secret);
    await new Promise<void>((resolve) => drill.server.listen(port, '127.0.0.1', resolve));
    return drill;
  }

  /**
   * Waits until every ORDER_CREATED event recorded since the endpoint was created has been received; adds a
   * violation for each one that has not within the limit, and for a delivery that did not verify.
   */
  async check(databaseUrl: string, violations: Violation[]): Promise<string> {
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const expected = async () =>
        (
          await db.query<{ event_id: string }>(
            `SELECT event_id FROM events WHERE type = 'ORDER_CREATED' AND occurred_at >= $1`,
            [this.createdAt],
          )
        ).rows.map((row) => row.event_id);
      const deadline = Date.now() + WEBHOOK_DELIVERY_LIMIT_MS;
      let missing: string[] = [];
      for (;;) {
        const events = await expected();
        missing = events.filter((id) => !this.received.has(id));
        if (missing.length === 0 || Date.now() > deadline) {
          const repeats = [...this.received.values()].filter((n) => n > 1).length;
          for (const id of missing.slice(0, 10))
            violations.push({
              check: WebhookDrill.CHECKS[0],
              detail: `${id} not received`,
            });
          if (missing.length > 10)
            violations.push({
              check: WebhookDrill.CHECKS[0],
              detail: `${missing.length - 10} more not received`,
            });
          if (this.forged > 0)
            violations.push({ check: WebhookDrill.CHECKS[1], detail: `${this.forged} did not verify` });
          const { rows } = await db.query<{ status: string; n: number }>(
            `SELECT status, count(*)::int AS n FROM (SELECT 'PENDING' AS status FROM webhook_delivery_queue WHERE webhook_endpoint_id = $1
                UNION ALL SELECT status FROM webhook_delivery_history WHERE webhook_endpoint_id = $1) d GROUP BY status`,
            [this.endpointId],
          );
          return (
            `webhooks: ${events.length} ORDER_CREATED events, ${events.length - missing.length} received and ` +
            `verified, ${repeats} received more than once; deliveries ${formatCounts(
              Object.fromEntries(rows.map((r) => [r.status, r.n])),
            )}`
          );
        }
        await sleep(500);
      }
    } finally {
      await db.end();
    }
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}
