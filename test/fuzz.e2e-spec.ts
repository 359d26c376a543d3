import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { groupBySignature, runCampaign, summarize } from './fuzz/campaign';
import { type FailureKind, ResponseJudge } from './fuzz/checks';
import { type FuzzRequest, operationsOf } from './fuzz/requests';
import { type OpenApiDocument, SchemaValidators } from './fuzz/schema';
import { bootTestApp, TestApp } from './support/test-app';

/**
 * Fuzzing from the served OpenAPI document (test/fuzz/): requests to every operation, valid and invalid,
 * as an admin and as a customer, each answer judged against the document: never a 5xx; every 4xx/5xx a
 * problem+json whose code is in ErrorCode; every 2xx body valid against its documented schema (files:
 * their type); headers as documented; a request the document refuses is refused, one it accepts is not
 * refused for its shape.
 *
 * In the e2e suite: a bounded run with a fixed seed. `npm run fuzz`: 10,000 requests with a fresh seed
 * (FUZZ_SEED to repeat one, FUZZ_REQUESTS for another count). The figures are printed, the whole report
 * (every failure with its request and response) is written to a file named in the output.
 */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 400);
const SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : process.env.FUZZ_REQUESTS
    ? Math.floor(Math.random() * 2 ** 31)
    : 14;

describe('fuzzing from the OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await bootTestApp({ LOG_LEVEL: 'fatal' });
  });
  afterAll(() => t.close());

  it(
    `answers ${REQUESTS} generated requests (seed ${SEED}) as the document says`,
    async () => {
      const result = await runCampaign(t, { requests: REQUESTS, seed: SEED });
      // The full report is for `npm run fuzz` (which sets FUZZ_REQUESTS); the test run leaves no file behind.
      if (process.env.FUZZ_REQUESTS) {
        const report = path.join(tmpdir(), `order-service-fuzz-${SEED}.json`);
        writeFileSync(report, JSON.stringify(result, null, 2));
        process.stdout.write(`\n${summarize(result)}\n\nfuzz: full report in ${report}\n`);
      }

      expect(result.sent).toBe(REQUESTS);
      if (REQUESTS >= result.operations * 2) {
        const unreached = Object.entries(result.coverage).filter(
          ([, c]) => c.admin === 0 || c.customer === 0,
        );
        expect(unreached).toEqual([]);
        expect(Object.keys(result.coverage)).toHaveLength(result.operations);
      }
      const unexpected = [...groupBySignature(result.failures.filter((f) => !f.expected)).keys()];
      expect(unexpected).toEqual([]);
    },
    REQUESTS * 100 + 120_000,
  );

  it('judges as it should: each check catches a planted fault, and a sound answer passes', async () => {
    const document = (
      await t.app.inject({ method: 'GET', url: '/docs/openapi.json' })
    ).json<OpenApiDocument>();
    const judge = new ResponseJudge(document, new SchemaValidators(document));
    const operation = operationsOf(document).find((o) => o.operationId === 'getProduct');
    if (!operation) throw new Error('getProduct is not in the document');
    const request = (refusedByDocument = false): FuzzRequest => ({
      operationId: 'getProduct',
      caller: 'customer',
      intent: refusedByDocument ? 'invalid' : 'valid',
      refusedByDocument,
      method: 'GET',
      url: '/api/v1/products/7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10',
      headers: {},
      pathIds: {},
    });
    // The judge reads status, headers and body: an answer made of just those.
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(body);
      const type = status >= 400 ? 'application/problem+json' : 'application/json; charset=utf-8';
      return {
        statusCode: status,
        headers: { 'content-type': type, ...headers },
        body: text,
        rawPayload: Buffer.from(text),
      } as unknown as LightMyRequestResponse;
    };
    const product = {
      productId: '7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10',
      name: 'Mug',
      price: 12.5,
      stock: 3,
      status: 'ACTIVE',
      createdAt: '2026-01-31T12:00:00Z',
    };
    const problem = (status: number, code: string, violations?: unknown[]) => ({
      type: 'urn:problem:order-service:x',
      status,
      title: 'Bad Request',
      detail: 'Nope.',
      instance: 'urn:uuid:7f1c0e7e-1f2a-4c53-9d0e-2b6f1b9f4a10',
      code,
      ...(violations ? { violations } : {}),
    });
    const kinds = (res: LightMyRequestResponse, refused = false): FailureKind[] =>
      judge.judge(operation, request(refused), res).map((failure) => failure.kind);

    expect(kinds(answer(200, product, { 'ratelimit-limit': '100' }))).toEqual([]);
    expect(kinds(answer(200, { ...product, secret: 'x' }))).toEqual(['response schema mismatch']);
    expect(kinds(answer(200, { ...product, price: 12.505 }))).toEqual(['response schema mismatch']);
    expect(kinds(answer(200, product, { 'ratelimit-limit': 'lots' }))).toEqual(['header schema mismatch']);
    expect(kinds(answer(500, problem(500, 'INTERNAL_ERROR')))).toEqual(['server error (5xx)']);
    expect(kinds(answer(404, problem(404, 'NO_SUCH_CODE')))).toEqual([
      'error code not in ErrorCode',
      'problem schema mismatch',
    ]);
    expect(
      kinds({
        ...answer(404, problem(404, 'ORDER_NOT_FOUND')),
        headers: { 'content-type': 'application/json' },
      }),
    ).toEqual(['error that is not a problem']);
    expect(kinds(answer(418, problem(418, 'VALIDATION_ERROR')))).toEqual(['undocumented status']);
    expect(kinds(answer(200, product), true)).toEqual(['invalid request accepted']);
    expect(
      kinds(
        answer(400, problem(400, 'VALIDATION_ERROR', [{ field: 'x', message: 'm', code: 'INVALID_TYPE' }])),
      ),
    ).toEqual(['valid request refused']);
    expect(
      kinds(
        answer(
          400,
          problem(400, 'VALIDATION_ERROR', [{ field: 'x', message: 'm', code: 'INSUFFICIENT_STOCK' }]),
        ),
      ),
    ).toEqual([]);
  });
});
