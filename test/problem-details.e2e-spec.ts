import { bootTestApp, TestApp } from './support/test-app';

describe('problem details for framework errors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp();
  });
  afterAll(() => t.close());

  it('an unknown route is 404 RESOURCE_NOT_FOUND as application/problem+json, localized', async () => {
    const ru = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    const en = await t.app.inject({
      method: 'GET',
      url: '/api/v1/nothing-here',
      headers: { 'accept-language': 'en-US,ru;q=0.9' },
    });
    for (const res of [ru, en]) {
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({
        type: 'urn:problem:order-service:resource-not-found',
        status: 404,
        title: 'Not Found',
        code: 'RESOURCE_NOT_FOUND',
        instance: expect.stringMatching(/^urn:uuid:[0-9a-f-]{36}$/),
        traceId: res.headers.traceparent,
      });
    }
    expect(ru.headers['content-language']).toBe('ru');
    expect(en.headers['content-language']).toBe('en');
    expect(ru.json().detail).not.toBe(en.json().detail);
    expect(en.json().detail).toBe('No resource exists at this address.');
  });
});
