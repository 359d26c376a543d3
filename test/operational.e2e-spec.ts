import { bootTestApp, TestApp } from './support/test-app';
import { onRedisCluster, runRedis } from './support/redis';
import { eventually } from './support/wait';

describe('operational endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(() => t.close());

  it('GET /health is 200 without a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok' });
  });

  it('GET /ready reports the database, Redis and queue it uses', async () => {
    // Redis's check has a short time limit of its own, which a loaded machine can pass now and then: the
    // readiness asked for is the settled one, Redis up (or, without Redis, not configured).
    const res = await eventually('/ready with Redis settled', async () => {
      const answer = await t.app.inject({ method: 'GET', url: '/ready' });
      const status = (answer.json() as { details?: { redis?: { status?: string } } }).details?.redis?.status;
      return status === 'down' ? undefined : answer;
    });
    expect(res.statusCode).toBe(200);
    const details = res.json().details;
    expect(details.database).toMatchObject({
      status: 'up',
      mode: t.config.database.embedded ? 'embedded' : 'external',
    });
    expect(details.queue).toMatchObject({
      status: 'up',
      backend: runRedis ? 'bullmq' : 'in-process',
    });
    // Without Redis there is nothing to be up: readiness says it is not configured.
    expect(details.redis.status).toBe(runRedis ? 'up' : 'not configured');
    if (runRedis && !onRedisCluster) expect(details.redis.mode).toBe('external');
    // A cluster says its state and its masters, all of them up.
    if (onRedisCluster) {
      expect(details.redis).toEqual({
        status: 'up',
        mode: 'cluster',
        state: 'ok',
        masters: expect.any(Number),
        mastersUp: details.redis.masters,
      });
    }
  });

  it('GET /info names the service and its version', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/info' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'order-service',
      version: expect.any(String),
      environment: 'test',
    });
  });

  it('GET /metrics exports Prometheus text with request durations by route template', async () => {
    await t.app.inject({ method: 'GET', url: '/health' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toContain(
      'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/health"',
    );
    expect(res.body).toContain('process_cpu_user_seconds_total');
  });

  it('operational endpoints do not exist under /api', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(404);
  });

  it('echoes a server traceparent that continues the caller trace', async () => {
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const res = await t.app.inject({ method: 'GET', url: '/health', headers: { traceparent: incoming } });
    const echoed = String(res.headers.traceparent);
    expect(echoed).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(echoed).not.toBe(incoming);
  });
});
