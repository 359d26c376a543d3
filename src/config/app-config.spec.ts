import { ConfigError, DEV_JWT_SECRET, loadConfig } from './app-config';

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
    [{ RATE_LIMIT_LIMIT: '0' }, 'RATE_LIMIT_LIMIT'],
    [{ MIGRATIONS_RUN: 'maybe' }, 'MIGRATIONS_RUN'],
    [{ LEGACY_STATUS_SUNSET: 'next year' }, 'LEGACY_STATUS_SUNSET'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ TRUST_PROXY: 'sometimes' }, 'TRUST_PROXY'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ APP_ROLE: 'worker', REDIS_URL: 'redis://r' }, 'DATABASE_URL'],
    [{ APP_ROLE: 'api', DATABASE_URL: 'postgres://d/x' }, 'REDIS_URL'],
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

  describe('NODE_ENV=production', () => {
    const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', REDIS_URL: 'redis://r:6379' };

    it('requires DATABASE_URL, REDIS_URL and a non-default key', () => {
      expect(() => load({ ...prod, DATABASE_URL: '' })).toThrow(/DATABASE_URL is required/);
      expect(() => load({ ...prod, REDIS_URL: '' })).toThrow(/REDIS_URL is required/);
      expect(() => load(prod)).toThrow(/JWT_SECRET must be set to a non-default key/);
      expect(() => load({ ...prod, JWT_SECRET: DEV_JWT_SECRET })).toThrow(/JWT_SECRET/);
    });

    it('starts with a real key or a JWKS URL', () => {
      expect(load({ ...prod, JWT_SECRET: 'x'.repeat(40) }).app.production).toBe(true);
      expect(load({ ...prod, JWT_JWKS_URL: 'https://idp.example/jwks' }).auth.jwksUrl).toBeDefined();
    });
  });
});
