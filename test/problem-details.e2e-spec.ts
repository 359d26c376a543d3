import { AppLogger } from '../src/platform/logging/app-logger';
import { expectProblemEnvelope } from './support/problem';
import {
  INTERNAL_FAILURE_MESSAGE,
  PROBE_PATH,
  ValidationProbeModule,
} from './support/probes/validation.probe';
import { bootTestApp, TestApp } from './support/test-app';

const ORDER_ID = '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

describe('problem details for framework errors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp({}, [ValidationProbeModule]);
  });
  afterAll(() => t.close());

  const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers = {}, payload?: string) =>
    t.app.inject({ method, url, headers, payload });
  const postOrder = (contentType: string, payload: string, lang = 'en') =>
    inject('POST', `${PROBE_PATH}/orders`, { 'content-type': contentType, 'accept-language': lang }, payload);

  it('an unknown route is 404 RESOURCE_NOT_FOUND as application/problem+json, localized', async () => {
    const ru = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    const en = await t.app.inject({
      method: 'GET',
      url: '/api/v1/nothing-here',
      headers: { 'accept-language': 'en-US,ru;q=0.9' },
    });
    for (const res of [ru, en]) {
      expectProblemEnvelope(res, 404, 'RESOURCE_NOT_FOUND');
      expect(res.json().title).toBe('Not Found');
    }
    expect(ru.headers['content-language']).toBe('ru');
    expect(en.headers['content-language']).toBe('en');
    expect(ru.json().detail).not.toBe(en.json().detail);
    expect(en.json().detail).toBe('No resource exists at this address.');
  });

  it('matches paths exactly as the router does: a trailing slash, other case or empty variable is 404', async () => {
    expectProblemEnvelope(await inject('DELETE', `${PROBE_PATH}/orders/`), 404, 'RESOURCE_NOT_FOUND');
    expectProblemEnvelope(await inject('DELETE', `${PROBE_PATH}/ORDERS`), 404, 'RESOURCE_NOT_FOUND');
    expectProblemEnvelope(await inject('GET', `${PROBE_PATH}/orders//confirm`), 404, 'RESOURCE_NOT_FOUND');
  });

  describe('405 Method Not Allowed', () => {
    it('answers a method the path does not have with Allow listing the ones it has', async () => {
      const en = await inject('DELETE', `${PROBE_PATH}/orders`, { 'accept-language': 'en' });
      const ru = await inject('DELETE', `${PROBE_PATH}/orders`, { 'accept-language': 'ru' });
      for (const res of [en, ru]) {
        expectProblemEnvelope(res, 405, 'METHOD_NOT_ALLOWED');
        expect(res.json().title).toBe('Method Not Allowed');
        expect(res.headers.allow).toBe('GET, HEAD, POST');
      }
      expect(en.json().detail).toBe('This method is not allowed here; allowed: GET, HEAD, POST.');
      expect(ru.json().detail).toBe('Этот метод здесь не поддерживается; допустимы: GET, HEAD, POST.');
      expect(ru.headers['content-language']).toBe('ru');
    });

    it('matches path variables and ignores the query string', async () => {
      const res = await inject('PUT', `${PROBE_PATH}/orders/${ORDER_ID}?note=x`);
      expectProblemEnvelope(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.allow).toBe('GET, HEAD');
    });

    it('covers operational endpoints too', async () => {
      const res = await inject('POST', '/health');
      expectProblemEnvelope(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.allow).toBe('GET, HEAD');
    });
  });

  describe('bodies the framework rejects', () => {
    it.each([
      ['application/json', '{"items": ['],
      ['application/json', '{"items": [1,]}'],
      ['application/json', '{"__proto__": {"admin": true}}'],
      ['application/merge-patch+json', '{oops}'],
    ])(
      'malformed JSON (%s %s) is 400 VALIDATION_ERROR with violation INVALID_JSON',
      async (type, payload) => {
        const res = await postOrder(type, payload);
        expectProblemEnvelope(res, 400, 'VALIDATION_ERROR');
        expect(res.json().violations).toEqual([
          { field: '', code: 'INVALID_JSON', message: 'The request body is not valid JSON.' },
        ]);
      },
    );

    it('malformed JSON is localized', async () => {
      const res = await postOrder('application/json', '{', 'ru');
      expectProblemEnvelope(res, 400, 'VALIDATION_ERROR');
      expect(res.headers['content-language']).toBe('ru');
      expect(res.json().violations).toEqual([
        { field: '', code: 'INVALID_JSON', message: 'Тело запроса не является корректным JSON.' },
      ]);
    });

    it('a JSON body over 1 MiB is 413 PAYLOAD_TOO_LARGE naming the limit', async () => {
      const payload = JSON.stringify({ note: 'x'.repeat(1024 * 1024) });
      const en = await postOrder('application/json', payload, 'en');
      const ru = await postOrder('application/json', payload, 'ru');
      for (const res of [en, ru]) {
        expectProblemEnvelope(res, 413, 'PAYLOAD_TOO_LARGE');
        expect(res.json().title).toBe('Content Too Large');
      }
      expect(en.json().detail).toBe('The request body is larger than the allowed 1 MiB.');
      expect(ru.json().detail).toBe('Тело запроса больше допустимых 1 MiB.');
    });

    it.each(['text/plain', 'application/xml', 'application/x-www-form-urlencoded'])(
      'a %s body on a JSON route is 415 UNSUPPORTED_MEDIA_TYPE',
      async (type) => {
        const res = await postOrder(type, 'items=1');
        expectProblemEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
        expect(res.json().title).toBe('Unsupported Media Type');
        expect(res.json().detail).toBe('This content type is not supported here; send application/json.');
      },
    );

    it('a body without a content type is 415 as well', async () => {
      const res = await inject('POST', `${PROBE_PATH}/orders`, {}, '{"items": []}');
      expectProblemEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  it('a URL the router cannot decode is a 400 problem with a trace, not Fastify’s own JSON', async () => {
    const res = await inject('GET', `${PROBE_PATH}/orders/%zz`, { 'accept-language': 'en' });
    expectProblemEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.headers['content-language']).toBe('en');
  });

  describe('uncaught errors', () => {
    let logged: jest.SpyInstance;
    beforeEach(() => {
      logged = jest.spyOn(AppLogger.prototype, 'error').mockImplementation(() => undefined);
    });
    afterEach(() => logged.mockRestore());

    it('are 500 INTERNAL_ERROR with a generic detail and nothing of the error in the body', async () => {
      const ru = await inject('GET', `${PROBE_PATH}/failure`);
      const en = await inject('GET', `${PROBE_PATH}/failure`, { 'accept-language': 'en' });
      for (const res of [ru, en]) {
        expectProblemEnvelope(res, 500, 'INTERNAL_ERROR');
        expect(res.json().title).toBe('Internal Server Error');
        for (const secret of [
          INTERNAL_FAILURE_MESSAGE,
          'SELECT',
          'secret',
          '/home',
          '.ts',
          'stack',
          'Error:',
        ]) {
          expect(res.body).not.toContain(secret);
        }
        expect(Object.keys(res.json()).sort()).toEqual(
          ['code', 'detail', 'instance', 'status', 'title', 'traceId', 'type'].sort(),
        );
      }
      expect(en.json().detail).toBe('An unexpected error occurred. Quote the traceId when reporting it.');
      expect(ru.json().detail).not.toBe(en.json().detail);
    });

    it('are logged whole, with the trace id of the response', async () => {
      const res = await inject('GET', `${PROBE_PATH}/failure`);
      const traceId = String(res.headers.traceparent).split('-')[1];
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({
          traceId,
          err: expect.objectContaining({ message: INTERNAL_FAILURE_MESSAGE, stack: expect.any(String) }),
        }),
        undefined,
        'ProblemDetails',
      );
    });
  });
});
