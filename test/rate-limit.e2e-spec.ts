import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { freePort } from './support/net';
import { expectProblem } from './support/problem';
import { RateLimitProbeModule } from './support/probes/rate-limit.probe';
import { bootTestApp, TestApp } from './support/test-app';
import { bearer } from './support/tokens';
import { describeIf } from './support/skip-unless';
import { answers200 } from './support/wait';
import { runRedis } from './support/redis';

const LIMIT = 5;
const WINDOW_SECONDS = 60;
const ENV = { RATE_LIMIT_LIMIT: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) };
const PROBE = '/api/v1/rate-limit-probe';

interface RateLimitState {
  limit: number;
  remaining: number;
  reset: number;
}

function rateLimitOf(res: LightMyRequestResponse): RateLimitState {
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
    expect(res.headers[name]).toMatch(/^\d+$/);
  }
  return {
    limit: Number(res.headers['ratelimit-limit']),
    remaining: Number(res.headers['ratelimit-remaining']),
    reset: Number(res.headers['ratelimit-reset']),
  };
}

const nowSeconds = () => Date.now() / 1000;

/** Standard security headers every response carries (security-headers.ts), not custom ones. */
const STANDARD_X_HEADERS = new Set(['x-content-type-options', 'x-frame-options']);

/** The API sends no custom `X-` headers; the library's own are `X-RateLimit-*`. */
function xHeaders(res: LightMyRequestResponse): string[] {
  return Object.keys(res.headers).filter(
    (name) => name.toLowerCase().startsWith('x-') && !STANDARD_X_HEADERS.has(name.toLowerCase()),
  );
}

/** A fresh address per test: the run's Redis key space is shared by every suite and app of the run. */
const ipOf = (() => {
  let next = 1;
  return () => `203.0.113.${next++}`;
})();

describe('rate limiting per client (RATE_LIMIT_LIMIT=5 per 60 s)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp(ENV, [RateLimitProbeModule]);
  });
  afterAll(() => t?.close());

  const call = (options: Omit<InjectOptions, 'method'> & { url: string }) =>
    t.app.inject({ method: 'GET', ...options });

  it('counts a client down in RateLimit-* headers, then answers 429 problem+json with Retry-After', async () => {
    const authorization = await bearer(t.config);
    const states: RateLimitState[] = [];
    for (let i = 0; i < LIMIT; i += 1) {
      const res = await call({ url: PROBE, headers: { authorization } });
      expect(res.statusCode).toBe(200);
      expect(xHeaders(res)).toEqual([]);
      states.push(rateLimitOf(res));
    }
    expect(states.map((s) => s.remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(states.every((s) => s.limit === LIMIT)).toBe(true);
    // One window: the same reset instant on every response, a Unix second within the window.
    const reset = states[0].reset;
    expect(states.every((s) => s.reset === reset)).toBe(true);
    expect(reset).toBeGreaterThan(nowSeconds());
    expect(reset).toBeLessThanOrEqual(nowSeconds() + WINDOW_SECONDS);

    const askedAt = nowSeconds();
    const limited = await call({ url: PROBE, headers: { authorization, 'accept-language': 'en' } });
    const answeredAt = nowSeconds();
    const retryAfter = Number(limited.headers['retry-after']);
    expectProblem(limited, 429, 'RATE_LIMIT_EXCEEDED', {
      type: 'urn:problem:order-service:rate-limit-exceeded',
      status: 429,
      title: 'Too Many Requests',
      detail: `Too many requests; retry after ${retryAfter} seconds.`,
      traceId: limited.headers.traceparent as string,
    });
    expect(xHeaders(limited)).toEqual([]);
    expect(rateLimitOf(limited)).toEqual({ limit: LIMIT, remaining: 0, reset });
    expect(String(limited.headers['retry-after'])).toMatch(/^\d+$/);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    // Retry-After and RateLimit-Reset name the same instant: Retry-After is the whole seconds, rounded up,
    // from the moment of the answer (somewhere between askedAt and answeredAt) to the reset.
    expect(answeredAt + retryAfter).toBeGreaterThanOrEqual(reset);
    expect(askedAt + retryAfter).toBeLessThan(reset + 1);
    expect(limited.headers['content-language']).toBe('en');
  });

  it('localizes the 429 detail: Russian by default, English on request, same code and title', async () => {
    const authorization = await bearer(t.config);
    for (let i = 0; i < LIMIT; i += 1) await call({ url: PROBE, headers: { authorization } });

    const ru = await call({ url: PROBE, headers: { authorization } });
    const en = await call({ url: PROBE, headers: { authorization, 'accept-language': 'en-GB,ru;q=0.5' } });
    for (const res of [ru, en]) {
      expect(res.statusCode).toBe(429);
      expect(res.json()).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', title: 'Too Many Requests' });
    }
    expect(ru.headers['content-language']).toBe('ru');
    expect(ru.json().detail).toBe(
      `Слишком много запросов; повторите через ${String(ru.headers['retry-after'])} с.`,
    );
    expect(en.headers['content-language']).toBe('en');
    expect(en.json().detail).toBe(
      `Too many requests; retry after ${String(en.headers['retry-after'])} seconds.`,
    );
  });

  it('gives every token subject a quota of its own, whatever address it calls from', async () => {
    const ip = ipOf();
    const first = await bearer(t.config);
    const second = await bearer(t.config);
    for (let i = 0; i < LIMIT; i += 1) {
      await call({ url: PROBE, headers: { authorization: first }, remoteAddress: ip });
    }
    expect(
      (await call({ url: PROBE, headers: { authorization: first }, remoteAddress: ip })).statusCode,
    ).toBe(429);

    const other = await call({ url: PROBE, headers: { authorization: second }, remoteAddress: ip });
    expect(other.statusCode).toBe(200);
    expect(rateLimitOf(other).remaining).toBe(LIMIT - 1);
    // The address itself was never counted: an anonymous call from it starts its own quota.
    const anonymous = await call({ url: `${PROBE}/public`, remoteAddress: ip });
    expect(anonymous.statusCode).toBe(200);
    expect(rateLimitOf(anonymous).remaining).toBe(LIMIT - 1);
  });

  it('counts callers without a valid token per IP, before authentication answers them', async () => {
    const ip = ipOf();
    const attempts = [
      await call({ url: PROBE, remoteAddress: ip }),
      await call({ url: PROBE, remoteAddress: ip, headers: { authorization: 'Bearer not-a-jwt' } }),
      await call({ url: `${PROBE}/public`, remoteAddress: ip }),
      await call({ url: PROBE, remoteAddress: ip }),
      await call({ url: PROBE, remoteAddress: ip }),
    ];
    expect(attempts.map((res) => res.statusCode)).toEqual([401, 401, 200, 401, 401]);
    expect(attempts.map((res) => rateLimitOf(res).remaining)).toEqual([4, 3, 2, 1, 0]);

    // The limit comes first: the 6th is 429, not 401, though it has no token either.
    const limited = await call({ url: PROBE, remoteAddress: ip });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('RATE_LIMIT_EXCEEDED');
    expect(rateLimitOf(limited).remaining).toBe(0);

    const otherIp = await call({ url: PROBE, remoteAddress: ipOf() });
    expect(otherIp.statusCode).toBe(401);
    expect(rateLimitOf(otherIp).remaining).toBe(LIMIT - 1);
  });

  it('draws one quota across all routes, and error responses (401, 403, 404) carry the headers', async () => {
    const authorization = await bearer(t.config, ['CUSTOMER']);
    const responses = [
      await call({ url: PROBE, headers: { authorization } }),
      await call({ url: `${PROBE}/admin`, headers: { authorization } }),
      await call({ url: `${PROBE}/missing`, headers: { authorization } }),
      await call({ url: `${PROBE}/public`, headers: { authorization } }),
    ];
    expect(responses.map((res) => res.statusCode)).toEqual([200, 403, 404, 200]);
    expect(responses.map((res) => rateLimitOf(res).remaining)).toEqual([4, 3, 2, 1]);
    expect(responses[1].headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('neither limits nor labels the operational endpoints', async () => {
    const ip = ipOf();
    for (let i = 0; i < LIMIT; i += 1) await call({ url: PROBE, remoteAddress: ip });
    expect((await call({ url: PROBE, remoteAddress: ip })).statusCode).toBe(429);

    for (let i = 0; i <= LIMIT; i += 1) {
      for (const url of ['/health', '/info']) {
        const res = await call({ url, remoteAddress: ip });
        expect(res.statusCode).toBe(200);
        expect(Object.keys(res.headers).filter((name) => /ratelimit|retry-after/i.test(name))).toEqual([]);
      }
    }
  });
});

/** Counters live in Redis only when one is configured; without it each process counts on its own. */
const describeWithRedis = describeIf(runRedis, 'needs REDIS_URL or REDIS_CLUSTER_NODES (a Redis server)');

describeWithRedis('two app instances on one Redis and key prefix', () => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    first = await bootTestApp(ENV, [RateLimitProbeModule]);
    second = await bootTestApp(ENV, [RateLimitProbeModule]);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('share each client’s count, window and reset instant', async () => {
    const authorization = await bearer(first.config);
    const sequence = [first, second, first, second, second];
    const states: RateLimitState[] = [];
    for (const instance of sequence) {
      const res = await instance.app.inject({ method: 'GET', url: PROBE, headers: { authorization } });
      expect(res.statusCode).toBe(200);
      states.push(rateLimitOf(res));
    }
    expect(states.map((s) => s.remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(new Set(states.map((s) => s.reset)).size).toBe(1);

    const limited = await first.app.inject({ method: 'GET', url: PROBE, headers: { authorization } });
    expect(limited.statusCode).toBe(429);
    expect(rateLimitOf(limited)).toEqual({ limit: LIMIT, remaining: 0, reset: states[0].reset });
  });
});

/**
 * A second service process on the same Redis and key prefix: the built app factory (what `npm start`
 * runs, from dist/, which `npm test` builds) with a plain-JS copy of the probe route, so it does not
 * depend on which business modules exist. Nothing is shared with this process but Redis.
 */
const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const describeWithSecondProcess = describeIf(
  runRedis,
  'needs REDIS_URL or REDIS_CLUSTER_NODES (a Redis server)',
);

const SECOND_PROCESS_SCRIPT = `
require('reflect-metadata');
const { Controller, Get, Module } = require('@nestjs/common');
const { createHttpApp } = require(${JSON.stringify(path.join(DIST, 'src', 'bootstrap', 'http-app.js'))});
const { loadConfig } = require(${JSON.stringify(path.join(DIST, 'src', 'platform', 'config', 'app-config.js'))});
class Probe { whoAmI() { return {}; } }
Get()(Probe.prototype, 'whoAmI', Object.getOwnPropertyDescriptor(Probe.prototype, 'whoAmI'));
Controller({ path: 'rate-limit-probe', version: '1' })(Probe);
class ProbeModule {}
Module({ controllers: [Probe] })(ProbeModule);
const config = loadConfig(process.env);
createHttpApp(config, { extraImports: [ProbeModule] })
  .then((app) => app.listen({ port: config.http.port, host: config.http.host }))
  .catch((error) => { console.error(error); process.exit(1); });
`;

describeWithSecondProcess('a second service process on the same Redis (dist built)', () => {
  let t: TestApp;
  let child: ChildProcess;
  let port: number;
  let output = '';

  beforeAll(async () => {
    t = await bootTestApp(ENV, [RateLimitProbeModule]);
    port = await freePort();
    child = spawn(process.execPath, ['-e', SECOND_PROCESS_SCRIPT], {
      cwd: ROOT,
      // The same settings as this app: database, Redis, key prefix, token key and the limit.
      env: { ...process.env, ...ENV, PORT: String(port), HOST: '127.0.0.1', MIGRATIONS_RUN: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    await answers200(`http://127.0.0.1:${port}/health`, {
      failsWhen: () =>
        child.exitCode === null ? undefined : `the second process exited (${child.exitCode}):\n${output}`,
    });
  });

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await t?.close();
  });

  it('counts a client’s requests to either process against one quota', async () => {
    const authorization = await bearer(t.config);
    const viaSecondProcess = () => fetch(`http://127.0.0.1:${port}${PROBE}`, { headers: { authorization } });
    const remaining: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await t.app.inject({ method: 'GET', url: PROBE, headers: { authorization } });
      expect(res.statusCode).toBe(200);
      remaining.push(rateLimitOf(res).remaining);
    }
    for (let i = 0; i < 2; i += 1) {
      const res = await viaSecondProcess();
      expect(res.status).toBe(200);
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);

    const limitedThere = await viaSecondProcess();
    expect(limitedThere.status).toBe(429);
    expect(limitedThere.headers.get('ratelimit-remaining')).toBe('0');
    const limitedHere = await t.app.inject({ method: 'GET', url: PROBE, headers: { authorization } });
    expect(limitedHere.statusCode).toBe(429);
  });
});
