import { customerClient } from './support/callers';
import { ApiClient } from './support/http-client';
import { JSON_PROBE_PATH as PROBE, JsonOutputProbeModule } from './support/probes/json-output.probe';
import { bootTestApp, TestApp } from './support/test-app';

/** What the probe's sample becomes on the wire (the JSON output rules). */
const EXPECTED_SAMPLE = {
  sampleId: 'a1',
  zero: 0,
  no: false,
  space: ' ',
  createdAt: '2025-03-04T05:06:07Z',
  tags: [],
  nested: { keep: 'x', when: '2025-03-04T05:06:07Z', deeper: { items: [] } },
  lines: [
    { lineId: 'l1', shippedAt: '2025-03-04T05:06:07Z' },
    { lineId: 'l2', comment: 'fragile' },
  ],
  matrix: [['2025-03-04T05:06:07Z'], [{ a: 1 }]],
};

describe('JSON output rules', () => {
  let t: TestApp;
  let client: ApiClient;

  beforeAll(async () => {
    t = await bootTestApp({}, [JsonOutputProbeModule]);
    client = await customerClient(t);
  });
  afterAll(() => t.close());

  it.each([
    ['GET', 200],
    ['POST', 201],
  ] as const)(
    '%s: fields without value are omitted at any depth, [] stays, timestamps are whole UTC seconds',
    async (method, status) => {
      const res = await client(method, `${PROBE}/sample`);
      expect(res.statusCode).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual(EXPECTED_SAMPLE);
      expect(res.body).not.toMatch(/null|""/);
    },
  );

  it('a flat object, never an envelope', async () => {
    const body = (await client('GET', `${PROBE}/sample`)).json();
    for (const envelope of ['data', 'success', 'error', 'result']) expect(body).not.toHaveProperty(envelope);
  });

  it('an empty collection is []', async () => {
    const res = await client('GET', `${PROBE}/list`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('[]');
  });

  it('leaves binary and streamed bodies untouched', async () => {
    const res = await client('GET', `${PROBE}/file`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.body).toBe('{"raw": null, "blank": ""}');
  });

  it('does not touch error bodies (Problem Details are rendered by the problem filter)', async () => {
    const res = await client('GET', `${PROBE}/unknown`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND', status: 404 });
  });
});
