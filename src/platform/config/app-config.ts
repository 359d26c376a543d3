import { hkdfSync } from 'node:crypto';
import * as fs from 'node:fs';
import { isIPv4, isIPv6 } from 'node:net';
import * as path from 'node:path';
import { Refusal } from '../logging/app-logger';

/**
 * Namespaced, validated configuration. Read once at start-up from the environment; a bad value stops the
 * process with one line naming the setting (see main.ts / worker.ts).
 */
export type AppRole = 'api' | 'worker' | 'all';

export interface AppConfig {
  app: {
    name: string;
    version: string;
    commit?: string;
    env: string;
    production: boolean;
    role: AppRole;
    shutdownDelayMs: number;
    logLevel: string;
  };
  http: {
    port: number;
    host: string;
    bodyLimitBytes: number;
    trustProxy: boolean | number;
    /** Origins allowed by CORS (`https://shop.example.com`); none: no CORS headers at all. */
    corsOrigins: string[];
  };
  database: {
    url?: string;
    dataDir: string;
    migrationsRun: boolean;
    embedded: boolean;
    limits: TransactionLimits;
    /** Named (prepared) statements for the hot paths; off behind a pooler that cannot carry them. */
    preparedStatements: boolean;
    replicas: ReplicaSettings;
  };
  /** `server` unset: no Redis (in-process queue, in-memory counters; one process only). */
  redis: { server?: RedisServer; keyPrefix: string };
  /** Jobs: how long a job whose worker died stays claimed before another worker takes it over. */
  queue: { stalledJobSeconds: number };
  /** Long-running tasks: finished tasks and their results are deleted after `retentionDays`. */
  tasks: { retentionDays: number };
  auth: {
    jwtSecret: string;
    devSecret: boolean;
    jwksUrl?: string;
    issuer?: string;
    audience?: string;
  };
  rateLimit: { limit: number; windowSeconds: number };
  versioning: { legacyStatusSunset: Date };
  idempotency: { ttlSeconds: number };
  cursor: { secret: string };
  telemetry: TelemetrySettings;
  /** Events (the outbox, the feed) and their webhook deliveries are deleted after `retentionDays`. */
  events: { retentionDays: number };
  webhooks: WebhookSettings;
}

/** Where Redis is: one server (REDIS_URL) or the seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES). */
export type RedisServer = { url: string } | { clusterNodes: RedisNode[] };
export interface RedisNode {
  host: string;
  port: number;
}

/** Webhook deliveries: where they may go, when they are tried again, the key of the stored secrets. */
export interface WebhookSettings {
  /** `http` and every address allowed as a destination (development, tests). */
  allowPrivateUrls: boolean;
  /** CIDRs (`10.0.0.0/8`, `fd00::/8`) a webhook may target although they are not globally reachable. */
  allowedNetworks: string[];
  /** Waits before attempts 2, 3, … in milliseconds. */
  retryScheduleMs: number[];
  /** AES-256 key (32 bytes) of the stored webhook secrets. */
  secretKey: Buffer;
  /** How many endpoints may exist at once, disabled ones included. */
  endpointLimit: number;
}

/** Read replicas (src/platform/database/replicas.ts): streaming standbys of the primary that serve lists and searches. */
export interface ReplicaSettings {
  /** DATABASE_REPLICA_URLS; none: every read on the primary. */
  urls: string[];
  /** DB_REPLICA_MAX_LAG_MS: a replica further behind than this (or unreachable) is skipped until it catches up. */
  maxLagMs: number;
}

/** Bounds on what a statement and a transaction of the service may hold, set for its sessions (src/platform/database/session-limits.ts). */
export interface TransactionLimits {
  /** DB_STATEMENT_TIMEOUT_MS: a statement running longer is cancelled (SQLSTATE 57014). */
  statementTimeoutMs: number;
  /** DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: a transaction left idle longer ends its session, freeing its locks. */
  idleInTransactionTimeoutMs: number;
}

/** OpenTelemetry traces (src/platform/telemetry): exported over OTLP/HTTP when an endpoint is set, else off. */
export interface TelemetrySettings {
  otlpEndpoint?: string;
  serviceName: string;
}

export class ConfigError extends Refusal {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`Invalid configuration: ${setting} ${message}`);
    this.name = 'ConfigError';
  }
}

/** The largest rate limit and window the settings take (the OpenAPI document declares the headers' bounds). */
export const MAX_RATE_LIMIT = 1_000_000;
export const MAX_RATE_LIMIT_WINDOW_SECONDS = 86_400;

/** Longest origin: scheme, a host name of at most 253 characters and a port. */
export const MAX_ORIGIN_LENGTH = 'https://'.length + 253 + ':65535'.length;

/** Public on purpose: it only signs tokens and cursors of local development runs. */
export const DEV_JWT_SECRET = 'order-service-development-secret-do-not-use-in-production';

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be an integer (got "${raw}")`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max} (got ${value})`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be true or false (got "${raw}")`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL (${protocols.join(', ')})`);
  }
  if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
    throw new ConfigError(
      name,
      `must use one of the schemes ${protocols.join(', ')} (got "${parsed.protocol}")`,
    );
  }
  return raw;
}

/** `DATABASE_REPLICA_URLS`: comma-separated PostgreSQL URLs, each checked as DATABASE_URL is. */
function replicaUrls(env: Env): string[] {
  const raw = str(env, 'DATABASE_REPLICA_URLS');
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(
      (part) =>
        url({ DATABASE_REPLICA_URLS: part }, 'DATABASE_REPLICA_URLS', ['postgres', 'postgresql']) as string,
    );
}

/**
 * Whom to believe about the client address (X-Forwarded-For): `false` (default, direct exposure), `true`
 * (any proxy), or the number of proxy hops in front (e.g. 1 behind a Kubernetes ingress).
 */
function trustProxy(env: Env): boolean | number {
  const raw = str(env, 'TRUST_PROXY');
  if (raw === undefined) return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  return bool(env, 'TRUST_PROXY', false);
}

/**
 * Read on its own by src/platform/telemetry before anything else is loaded (instrumentations patch modules as they are
 * required), and again by loadConfig, which reports a bad value in one line like any other setting.
 */
export function telemetrySettings(env: Env = process.env): TelemetrySettings {
  return {
    otlpEndpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http', 'https']),
    serviceName: str(env, 'OTEL_SERVICE_NAME') ?? 'order-service',
  };
}

/**
 * `CORS_ORIGINS`: comma-separated origins, each a scheme (http or https) and a host with an optional port,
 * exactly what browsers send in `Origin` (`https://shop.example.com`, `http://localhost:5173`). A path, a
 * wildcard or anything else stops the start: a typo must not silently leave a front-end locked out, nor
 * `*` let every site in.
 */
/** REDIS_URL or, instead of it, REDIS_CLUSTER_NODES (`host:port` seeds; the client learns the rest). */
export function redisServer(env: Env): RedisServer | undefined {
  const redisUrl = url(env, 'REDIS_URL', ['redis', 'rediss']);
  const seeds = str(env, 'REDIS_CLUSTER_NODES');
  if (seeds === undefined) return redisUrl === undefined ? undefined : { url: redisUrl };
  if (redisUrl !== undefined) {
    throw new ConfigError('REDIS_CLUSTER_NODES', 'is used instead of REDIS_URL: set only one of them');
  }
  const clusterNodes = seeds
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d{1,5})$/.exec(entry);
      const port = Number(match?.[2]);
      if (!match || port < 1 || port > 65535) {
        throw new ConfigError(
          'REDIS_CLUSTER_NODES',
          `must be comma-separated host:port seeds such as redis-0.redis:6379; "${entry}" is not one`,
        );
      }
      return { host: match[1].replace(/^\[(.*)\]$/, '$1'), port };
    });
  if (clusterNodes.length === 0) {
    throw new ConfigError('REDIS_CLUSTER_NODES', 'must name at least one host:port seed');
  }
  return { clusterNodes };
}

function corsOrigins(env: Env): string[] {
  const raw = str(env, 'CORS_ORIGINS');
  if (raw === undefined) return [];
  const origins = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const origin = originOf(entry);
      if (origin === undefined) {
        throw new ConfigError(
          'CORS_ORIGINS',
          `must be comma-separated origins such as https://shop.example.com (scheme and host, optional port, ` +
            `no path or wildcard); "${entry}" is not one`,
        );
      }
      return origin;
    });
  return [...new Set(origins)];
}

/** The origin `entry` names (lower-case host, no default port), or undefined when it is not just an origin. */
function originOf(entry: string): string | undefined {
  if (entry.length > MAX_ORIGIN_LENGTH || entry.includes('*')) return undefined;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return undefined;
  }
  const bare =
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '' &&
    // `https://a.com/` is accepted, `https://a.com/?` or `https://a.com//` are not.
    /^[a-z]+:\/\/[^/?#]+\/?$/i.test(entry);
  return bare ? url.origin : undefined;
}

/** Waits before webhook attempts 2, 3, … (eight attempts in all). */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '5s,30s,2m,10m,1h,6h,24h';
const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * `WEBHOOK_RETRY_SCHEDULE`: comma-separated waits, each a number with `ms`, `s`, `m` or `h` (`5s`, `1.5h`), in
 * milliseconds. The waits must add up to less than `EVENT_RETENTION_DAYS`: a delivery's last attempt comes
 * while it and its event are still kept.
 */
function webhookRetrySchedule(env: Env, retentionDays: number): number[] {
  const raw = str(env, 'WEBHOOK_RETRY_SCHEDULE') ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  const waits = raw.split(',').map((entry) => {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(entry.trim());
    if (!match) {
      throw new ConfigError(
        'WEBHOOK_RETRY_SCHEDULE',
        `must be comma-separated waits, each a number with ms, s, m or h (such as ${DEFAULT_WEBHOOK_RETRY_SCHEDULE}); ` +
          `"${entry.trim()}" is not one`,
      );
    }
    return Math.round(Number(match[1]) * DURATION_UNITS_MS[match[2]]);
  });
  if (waits.reduce((sum, wait) => sum + wait, 0) >= retentionDays * 86_400_000) {
    throw new ConfigError(
      'WEBHOOK_RETRY_SCHEDULE',
      `must add up to less than EVENT_RETENTION_DAYS (${retentionDays} days): deliveries are deleted after that`,
    );
  }
  return waits;
}

/**
 * `WEBHOOK_ALLOWED_NETWORKS`: comma-separated CIDRs, IPv4 or IPv6 (`10.0.0.0/8`, `fd00::/8`; a bare address is
 * that one address). A typo stops the start: it would otherwise refuse the receivers it was meant to allow.
 */
function webhookAllowedNetworks(env: Env): string[] {
  const raw = str(env, 'WEBHOOK_ALLOWED_NETWORKS');
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [address, prefix, extra] = entry.split('/');
      const bits = isIPv4(address) ? 32 : isIPv6(address) && !address.includes('%') ? 128 : 0;
      const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
      if (bits === 0 || !prefixOk || extra !== undefined) {
        throw new ConfigError(
          'WEBHOOK_ALLOWED_NETWORKS',
          `must be comma-separated CIDRs such as 10.0.0.0/8 or fd00::/8; "${entry}" is not one`,
        );
      }
      return entry;
    });
}

/**
 * `WEBHOOK_SECRET_KEY`: 32 bytes in base64 (`openssl rand -base64 32`), required in production. Elsewhere it
 * defaults to a key derived from the JWT key (HKDF), so local runs need no setting; changing that key then
 * makes the stored webhook secrets unreadable, which only a development database can afford.
 */
function webhookSecretKey(env: Env, production: boolean, jwtSecret: string): Buffer {
  const raw = str(env, 'WEBHOOK_SECRET_KEY');
  if (raw === undefined) {
    if (production) {
      throw new ConfigError(
        'WEBHOOK_SECRET_KEY',
        'is required when NODE_ENV=production (32 random bytes in base64: openssl rand -base64 32)',
      );
    }
    return Buffer.from(hkdfSync('sha256', jwtSecret, '', 'order-service webhook secret key', 32));
  }
  // The message never shows the value: it is a key.
  if (!/^[A-Za-z0-9+/]{43}=$/.test(raw)) {
    throw new ConfigError('WEBHOOK_SECRET_KEY', 'must be 32 bytes in base64 (openssl rand -base64 32)');
  }
  return Buffer.from(raw, 'base64');
}

/** About nine months after the release: the deprecated status endpoint's sunset (docs/versioning.md). */
const DEFAULT_LEGACY_STATUS_SUNSET = '2027-08-31T00:00:00Z';

/**
 * DB_STATEMENT_TIMEOUT_MS and DB_IDLE_IN_TRANSACTION_TIMEOUT_MS alone: what the migrations Job needs to set the
 * session limits, without the rest of the service's configuration.
 */
export function transactionLimits(env: Env = process.env): TransactionLimits {
  return {
    statementTimeoutMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', 15_000, 100, 600_000),
    idleInTransactionTimeoutMs: int(env, 'DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 15_000, 100, 600_000),
  };
}

export function loadConfig(
  env: Env = process.env,
  pkg: { name: string; version: string } = readPackage(),
): AppConfig {
  const nodeEnv = str(env, 'NODE_ENV') ?? 'development';
  const production = nodeEnv === 'production';

  const role = str(env, 'APP_ROLE') ?? 'all';
  if (role !== 'api' && role !== 'worker' && role !== 'all') {
    throw new ConfigError('APP_ROLE', `must be one of api, worker, all (got "${role}")`);
  }

  const databaseUrl = url(env, 'DATABASE_URL', ['postgres', 'postgresql']);
  const redis = redisServer(env);
  const jwksUrl = url(env, 'JWT_JWKS_URL', ['http', 'https']);
  const jwtSecret = str(env, 'JWT_SECRET');
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    throw new ConfigError('JWT_SECRET', 'must be at least 32 characters long');
  }

  if (production) {
    if (!databaseUrl) throw new ConfigError('DATABASE_URL', 'is required when NODE_ENV=production');
    if (!redis) {
      throw new ConfigError('REDIS_URL', 'is required when NODE_ENV=production (or REDIS_CLUSTER_NODES)');
    }
    if (!jwksUrl && (jwtSecret === undefined || jwtSecret === DEV_JWT_SECRET)) {
      throw new ConfigError('JWT_SECRET', 'must be set to a non-default key when NODE_ENV=production');
    }
  }

  if (role !== 'all' && (!databaseUrl || !redis)) {
    // Separate api and worker processes share state only through PostgreSQL and Redis.
    throw new ConfigError(
      !databaseUrl ? 'DATABASE_URL' : 'REDIS_URL',
      `is required when APP_ROLE=${role}${databaseUrl ? ' (or REDIS_CLUSTER_NODES)' : ''}`,
    );
  }

  const sunsetRaw = str(env, 'LEGACY_STATUS_SUNSET') ?? DEFAULT_LEGACY_STATUS_SUNSET;
  const sunset = new Date(sunsetRaw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(sunsetRaw) || Number.isNaN(sunset.getTime())) {
    throw new ConfigError('LEGACY_STATUS_SUNSET', `must be an ISO 8601 instant (got "${sunsetRaw}")`);
  }

  const secret = jwtSecret ?? DEV_JWT_SECRET;
  const eventRetentionDays = int(env, 'EVENT_RETENTION_DAYS', 30, 1, 3650);
  return {
    app: {
      name: pkg.name,
      version: pkg.version,
      commit: str(env, 'GIT_COMMIT'),
      env: nodeEnv,
      production,
      role,
      shutdownDelayMs: int(env, 'SHUTDOWN_DELAY_MS', 0, 0, 60_000),
      logLevel: str(env, 'LOG_LEVEL') ?? (nodeEnv === 'test' ? 'warn' : 'info'),
    },
    http: {
      port: int(env, 'PORT', 3000, 0, 65535),
      host: str(env, 'HOST') ?? '0.0.0.0',
      bodyLimitBytes: 1024 * 1024,
      trustProxy: trustProxy(env),
      corsOrigins: corsOrigins(env),
    },
    database: {
      url: databaseUrl,
      dataDir: str(env, 'DATA_DIR') ?? '.data',
      migrationsRun: bool(env, 'MIGRATIONS_RUN', true),
      limits: transactionLimits(env),
      preparedStatements: bool(env, 'DB_PREPARED_STATEMENTS', true),
      replicas: {
        urls: replicaUrls(env),
        maxLagMs: int(env, 'DB_REPLICA_MAX_LAG_MS', 5_000, 100, 3_600_000),
      },
      embedded: false,
    },
    redis: { server: redis, keyPrefix: str(env, 'REDIS_KEY_PREFIX') ?? 'order-service' },
    queue: { stalledJobSeconds: int(env, 'QUEUE_STALLED_JOB_SECONDS', 30, 2, 600) },
    tasks: { retentionDays: int(env, 'TASK_RETENTION_DAYS', 30, 1, 3650) },
    auth: {
      jwtSecret: secret,
      devSecret: jwtSecret === undefined,
      jwksUrl,
      issuer: str(env, 'JWT_ISSUER'),
      audience: str(env, 'JWT_AUDIENCE'),
    },
    rateLimit: {
      limit: int(env, 'RATE_LIMIT_LIMIT', 100, 1, MAX_RATE_LIMIT),
      windowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60, 1, MAX_RATE_LIMIT_WINDOW_SECONDS),
    },
    versioning: { legacyStatusSunset: sunset },
    idempotency: { ttlSeconds: int(env, 'IDEMPOTENCY_TTL_SECONDS', 86_400, 60, 7 * 86_400) },
    cursor: { secret: str(env, 'CURSOR_SECRET') ?? secret },
    telemetry: telemetrySettings(env),
    events: { retentionDays: eventRetentionDays },
    webhooks: {
      allowPrivateUrls: bool(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
      allowedNetworks: webhookAllowedNetworks(env),
      retryScheduleMs: webhookRetrySchedule(env, eventRetentionDays),
      secretKey: webhookSecretKey(env, production, secret),
      endpointLimit: int(env, 'WEBHOOK_ENDPOINT_LIMIT', 100, 1, 10_000),
    },
  };
}

/** What an operator should hear at start about the settings: risky ones that are allowed, but not silently. */
export function startupWarnings(config: AppConfig): string[] {
  const warnings: string[] = [];
  if (config.auth.devSecret)
    warnings.push('JWT_SECRET is not set: using the development key (never in production)');
  if (config.webhooks.allowPrivateUrls && config.app.production) {
    warnings.push(
      'WEBHOOK_ALLOW_PRIVATE_URLS=true in production: webhooks may target http and private addresses, ' +
        'this network included',
    );
  }
  return warnings;
}

function readPackage(): { name: string; version: string } {
  // Works from src/ (ts-jest) and dist/src/ (compiled): walk up to the nearest package.json.
  let dir = __dirname;
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate))
      return JSON.parse(fs.readFileSync(candidate, 'utf8')) as { name: string; version: string };
    const parent = path.dirname(dir);
    if (parent === dir) return { name: 'order-service', version: '0.0.0' };
    dir = parent;
  }
}
