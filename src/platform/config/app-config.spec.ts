import { hkdfSync } from 'node:crypto';
import { ConfigError, DEV_JWT_SECRET, loadConfig, startupWarnings } from './app-config';

const pkg = { name: 'order-service', version: '1.2.3' };
const load = (env: Record<string, string>) => loadConfig(env, pkg);

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = load({});
    expect(config.http).toMatchObject({ port: 3000, host: '0.0.0.0' });
    expect(config.app).toMatchObject({ role: 'all', env: 'development', version: '1.2.3' });
    expect(config.database).toMatchObject({ url: undefined, dataDir: '.data', migrationsRun: true });
    expect(config.rateLimit).toEqual({ limit: 100, windowSeconds: 60 });
    expect(config.auth).toMatchObject({ jwtSecret: DEV_JWT_SECRET, devSecret: true });
    expect(config.versioning.legacyStatusSunset.toISOString()).toBe('2027-08-31T00:00:00.000Z');
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ APP_ROLE: 'web' }, 'APP_ROLE'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ REDIS_CLUSTER_NODES: 'redis-0:6379,redis-1' }, 'REDIS_CLUSTER_NODES'],
    [{ REDIS_CLUSTER_NODES: 'redis://redis-0:6379' }, 'REDIS_CLUSTER_NODES'],
    [{ REDIS_CLUSTER_NODES: 'redis-0:70000' }, 'REDIS_CLUSTER_NODES'],
    [{ REDIS_CLUSTER_NODES: ',' }, 'REDIS_CLUSTER_NODES'],
    [{ REDIS_CLUSTER_NODES: 'redis-0:6379', REDIS_URL: 'redis://r' }, 'REDIS_CLUSTER_NODES'],
    [{ RATE_LIMIT_LIMIT: '0' }, 'RATE_LIMIT_LIMIT'],
    [{ MIGRATIONS_RUN: 'maybe' }, 'MIGRATIONS_RUN'],
    [{ LEGACY_STATUS_SUNSET: 'next year' }, 'LEGACY_STATUS_SUNSET'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ TRUST_PROXY: 'sometimes' }, 'TRUST_PROXY'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ APP_ROLE: 'worker', REDIS_URL: 'redis://r' }, 'DATABASE_URL'],
    [{ APP_ROLE: 'api', DATABASE_URL: 'postgres://d/x' }, 'REDIS_URL'],
    [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'sometimes' }, 'WEBHOOK_ALLOW_PRIVATE_URLS'],
    [{ WEBHOOK_RETRY_SCHEDULE: '5s,30' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_RETRY_SCHEDULE: '5s,,30s' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_RETRY_SCHEDULE: '5 s' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_RETRY_SCHEDULE: '-5s' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_RETRY_SCHEDULE: '1d' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_RETRY_SCHEDULE: '5S' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_RETRY_SCHEDULE: '.5s' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_RETRY_SCHEDULE: '400h,400h' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_RETRY_SCHEDULE: '24h', EVENT_RETENTION_DAYS: '1' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_SECRET_KEY: 'too-short' }, 'WEBHOOK_SECRET_KEY'],
    [{ WEBHOOK_SECRET_KEY: Buffer.alloc(16, 1).toString('base64') }, 'WEBHOOK_SECRET_KEY'],
    [{ WEBHOOK_SECRET_KEY: Buffer.alloc(33, 1).toString('base64') }, 'WEBHOOK_SECRET_KEY'],
    [{ WEBHOOK_SECRET_KEY: Buffer.alloc(32, 0xfb).toString('base64url') }, 'WEBHOOK_SECRET_KEY'],
    [{ WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/33' }, 'WEBHOOK_ALLOWED_NETWORKS'],
    [{ WEBHOOK_ALLOWED_NETWORKS: '10.0.0/8' }, 'WEBHOOK_ALLOWED_NETWORKS'],
    [{ WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8/8' }, 'WEBHOOK_ALLOWED_NETWORKS'],
    [{ WEBHOOK_ALLOWED_NETWORKS: 'fd00::/129' }, 'WEBHOOK_ALLOWED_NETWORKS'],
    [{ WEBHOOK_ALLOWED_NETWORKS: 'fe80::%eth0/64' }, 'WEBHOOK_ALLOWED_NETWORKS'],
    [{ WEBHOOK_ALLOWED_NETWORKS: 'cluster.local' }, 'WEBHOOK_ALLOWED_NETWORKS'],
    [{ WEBHOOK_ALLOWED_NETWORKS: '0177.0.0.1/32' }, 'WEBHOOK_ALLOWED_NETWORKS'],
    [{ EVENT_RETENTION_DAYS: '0' }, 'EVENT_RETENTION_DAYS'],
  ])('rejects %j naming %s in one line', (env, setting) => {
    expect(() => load(env)).toThrow(ConfigError);
    try {
      load(env);
    } catch (error) {
      expect((error as ConfigError).setting).toBe(setting);
      expect((error as Error).message).toMatch(new RegExp(`^Invalid configuration: ${setting} `));
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('allows no CORS origin unless told, then the listed origins as browsers send them', () => {
    expect(load({}).http.corsOrigins).toEqual([]);
    expect(load({ CORS_ORIGINS: ' ' }).http.corsOrigins).toEqual([]);
    expect(
      load({ CORS_ORIGINS: 'https://Shop.Example.com, http://localhost:5173,https://a.example:443/,' }).http
        .corsOrigins,
    ).toEqual(['https://shop.example.com', 'http://localhost:5173', 'https://a.example']);
  });

  it.each([
    '*',
    'shop.example.com',
    'https://shop.example.com/app',
    'ftp://files.example.com',
    'https://*.example.com',
    'https://u:p@example.com',
    'https://example.com?x=1',
  ])('refuses CORS_ORIGINS=%j in one line naming the setting and the entry', (value) => {
    expect(() => load({ CORS_ORIGINS: `https://ok.example.com,${value}` })).toThrow(
      new RegExp(`^Invalid configuration: CORS_ORIGINS .*"${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`),
    );
  });

  it('trusts no proxy unless told, then all or a number of hops', () => {
    expect(load({}).http.trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: 'true' }).http.trustProxy).toBe(true);
    expect(load({ TRUST_PROXY: '1' }).http.trustProxy).toBe(1);
  });

  it('turns OpenTelemetry traces on only with an OTLP endpoint, named order-service unless told', () => {
    expect(load({}).telemetry).toEqual({ otlpEndpoint: undefined, serviceName: 'order-service' });
    expect(
      load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318', OTEL_SERVICE_NAME: 'orders-eu' })
        .telemetry,
    ).toEqual({ otlpEndpoint: 'http://otel-collector:4318', serviceName: 'orders-eu' });
  });

  describe('webhooks', () => {
    it('applies the documented defaults', () => {
      const config = load({});
      expect(config.events).toEqual({ retentionDays: 30 });
      expect(config.webhooks).toMatchObject({
        allowPrivateUrls: false,
        allowedNetworks: [],
        retryScheduleMs: [5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000],
      });
    });

    it('reads a retry schedule in ms, s, m and h', () => {
      expect(load({ WEBHOOK_RETRY_SCHEDULE: '250ms, 1.5s,2m ,0.5h,1h' }).webhooks.retryScheduleMs).toEqual([
        250, 1_500, 120_000, 1_800_000, 3_600_000,
      ]);
      expect(
        load({ WEBHOOK_RETRY_SCHEDULE: '720h', EVENT_RETENTION_DAYS: '31' }).webhooks.retryScheduleMs,
      ).toEqual([2_592_000_000]);
    });

    it('names the bad wait of a retry schedule', () => {
      expect(() => load({ WEBHOOK_RETRY_SCHEDULE: '5s,30x,2m' })).toThrow(
        /^Invalid configuration: WEBHOOK_RETRY_SCHEDULE must be comma-separated waits, .*; "30x" is not one$/,
      );
    });

    it('reads allowed networks, IPv4 and IPv6', () => {
      expect(
        load({ WEBHOOK_ALLOWED_NETWORKS: ' 10.0.0.0/8, fd00::/8,192.168.1.10 ,::ffff:10.0.0.0/104,' })
          .webhooks.allowedNetworks,
      ).toEqual(['10.0.0.0/8', 'fd00::/8', '192.168.1.10', '::ffff:10.0.0.0/104']);
      expect(() => load({ WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8,10.0.0.0/33' })).toThrow(
        /^Invalid configuration: WEBHOOK_ALLOWED_NETWORKS .*"10.0.0.0\/33" is not one$/,
      );
    });

    it('takes the secret key in base64 and never shows it in an error', () => {
      const key = Buffer.alloc(32, 9);
      expect(load({ WEBHOOK_SECRET_KEY: key.toString('base64') }).webhooks.secretKey).toEqual(key);
      const wrong = Buffer.alloc(31, 9).toString('base64');
      expect(() => load({ WEBHOOK_SECRET_KEY: wrong })).toThrow(
        /WEBHOOK_SECRET_KEY must be 32 bytes in base64/,
      );
      try {
        load({ WEBHOOK_SECRET_KEY: wrong });
      } catch (error) {
        expect((error as Error).message).not.toContain(wrong);
      }
    });

    it('derives the secret key from the JWT key outside production', () => {
      const derive = (secret: string) =>
        Buffer.from(hkdfSync('sha256', secret, '', 'order-service webhook secret key', 32));
      expect(load({}).webhooks.secretKey).toEqual(derive(DEV_JWT_SECRET));
      const jwtSecret = 'a-development-key-of-more-than-32-chars';
      const { secretKey } = load({ JWT_SECRET: jwtSecret }).webhooks;
      expect(secretKey).toEqual(derive(jwtSecret));
      expect(secretKey).toHaveLength(32);
      expect(secretKey).not.toEqual(derive(DEV_JWT_SECRET));
    });

    it('warns at start when private URLs are allowed in production, only then', () => {
      const prod = {
        NODE_ENV: 'production',
        DATABASE_URL: 'postgres://db/x',
        REDIS_URL: 'redis://r:6379',
        JWT_SECRET: 'x'.repeat(40),
        WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
      };
      expect(startupWarnings(load(prod))).toEqual([]);
      expect(startupWarnings(load({ ...prod, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }))).toEqual([
        expect.stringMatching(/^WEBHOOK_ALLOW_PRIVATE_URLS=true in production: /),
      ]);
      const development = { JWT_SECRET: 'x'.repeat(40), WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
      expect(load(development).webhooks.allowPrivateUrls).toBe(true);
      expect(startupWarnings(load(development))).toEqual([]);
      expect(startupWarnings(load({}))).toEqual([expect.stringMatching(/^JWT_SECRET is not set/)]);
    });
  });

  it('takes REDIS_CLUSTER_NODES instead of REDIS_URL: the seeds of a cluster, for any role', () => {
    const seeds = 'redis-0.redis:6379, 10.0.0.7:7000,[fd00::7]:7001';
    expect(load({ REDIS_CLUSTER_NODES: seeds }).redis.server).toEqual({
      clusterNodes: [
        { host: 'redis-0.redis', port: 6379 },
        { host: '10.0.0.7', port: 7000 },
        { host: 'fd00::7', port: 7001 },
      ],
    });
    expect(load({ REDIS_URL: 'redis://r:6379' }).redis.server).toEqual({ url: 'redis://r:6379' });
    expect(load({}).redis.server).toBeUndefined();
    const api = { APP_ROLE: 'api', DATABASE_URL: 'postgres://d/x', REDIS_CLUSTER_NODES: 'r:6379' };
    expect(load(api).app.role).toBe('api');
  });

  describe('NODE_ENV=production', () => {
    const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', REDIS_URL: 'redis://r:6379' };

    const webhookKey = { WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') };

    it('requires DATABASE_URL, REDIS_URL, a non-default key and a webhook secret key', () => {
      expect(() => load({ ...prod, DATABASE_URL: '' })).toThrow(/DATABASE_URL is required/);
      expect(() => load({ ...prod, REDIS_URL: '' })).toThrow(/REDIS_URL is required/);
      expect(() => load(prod)).toThrow(/JWT_SECRET must be set to a non-default key/);
      expect(() => load({ ...prod, JWT_SECRET: DEV_JWT_SECRET })).toThrow(/JWT_SECRET/);
      expect(() => load({ ...prod, JWT_SECRET: 'x'.repeat(40) })).toThrow(
        /^Invalid configuration: WEBHOOK_SECRET_KEY is required when NODE_ENV=production/,
      );
    });

    it('starts with a real key or a JWKS URL', () => {
      expect(load({ ...prod, ...webhookKey, JWT_SECRET: 'x'.repeat(40) }).app.production).toBe(true);
      expect(
        load({ ...prod, ...webhookKey, JWT_JWKS_URL: 'https://idp.example/jwks' }).auth.jwksUrl,
      ).toBeDefined();
    });
  });
});
