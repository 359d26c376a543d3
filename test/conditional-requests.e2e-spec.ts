import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { customerClient } from './support/callers';
import { ApiClient, MERGE_PATCH } from './support/http-client';
import {
  CONDITIONAL_PROBE_PATH as DOCUMENTS,
  ConditionalRequestsProbeModule,
  PROBE_DOCUMENTS_TABLE_SQL,
} from './support/probes/conditional-requests.probe';
import { expectProblem } from './support/problem';
import { bootTestApp, TestApp } from './support/test-app';

describe('conditional requests (ETag, If-None-Match, If-Match)', () => {
  let t: TestApp;
  let db: DataSource;
  let client: ApiClient;

  async function newDocument(title = 'Draft'): Promise<{ url: string; etag: string; documentId: string }> {
    const documentId = randomUUID();
    await db.query('INSERT INTO conditional_probe_documents (document_id, title) VALUES ($1, $2)', [
      documentId,
      title,
    ]);
    return { url: `${DOCUMENTS}/${documentId}`, etag: `"${documentId}.v1"`, documentId };
  }

  const retitle = (url: string, title: string, headers: Record<string, string> = {}, lang?: 'ru' | 'en') =>
    client('PATCH', url, { body: { title }, headers, contentType: MERGE_PATCH, lang });

  async function stored(documentId: string): Promise<{ title: string; version: number }> {
    const [row] = (await db.query(
      'SELECT title, version FROM conditional_probe_documents WHERE document_id = $1',
      [documentId],
    )) as Array<{ title: string; version: number }>;
    return row;
  }

  beforeAll(async () => {
    t = await bootTestApp({}, [ConditionalRequestsProbeModule]);
    db = t.app.get(DataSource);
    await db.query(PROBE_DOCUMENTS_TABLE_SQL);
    client = await customerClient(t);
  });
  afterAll(() => t.close());

  describe('ETag and If-None-Match', () => {
    it('a read carries a strong ETag made of the id and the version', async () => {
      const { url, etag, documentId } = await newDocument();
      const res = await client('GET', url);
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toBe(etag);
      expect(res.json()).toEqual({ documentId, title: 'Draft', version: 1 });
    });

    it.each([
      ['the current tag', (etag: string) => etag],
      ['a list containing it', (etag: string) => `"stale", ${etag}`],
      ['its weak form (weak comparison)', (etag: string) => `W/${etag}`],
      ['*', () => '*'],
    ])(
      'If-None-Match with %s is 304 without a body, keeping ETag and Cache-Control',
      async (_case, header) => {
        const { url, etag } = await newDocument();
        const res = await client('GET', url, { headers: { 'if-none-match': header(etag) } });
        expect(res.statusCode).toBe(304);
        expect(res.body).toBe('');
        expect(res.headers.etag).toBe(etag);
        expect(res.headers['cache-control']).toBe('private, no-cache');
      },
    );

    it.each([
      ['another tag', '"something-else.v1"'],
      ['a malformed header', 'not-quoted'],
    ])('If-None-Match with %s gets the full 200', async (_case, header) => {
      const { url } = await newDocument();
      const res = await client('GET', url, { headers: { 'if-none-match': header } });
      expect(res.statusCode).toBe(200);
      expect(res.json().title).toBe('Draft');
    });

    it('a change makes the old ETag stale: the next conditional read is a full 200 with the new ETag', async () => {
      const { url, etag, documentId } = await newDocument();
      const changed = await retitle(url, 'Final', { 'if-match': etag });
      expect(changed.statusCode).toBe(200);
      expect(changed.headers.etag).toBe(`"${documentId}.v2"`);
      const res = await client('GET', url, { headers: { 'if-none-match': etag } });
      expect(res.statusCode).toBe(200);
      expect(res.headers.etag).toBe(`"${documentId}.v2"`);
      expect(res.json()).toEqual({ documentId, title: 'Final', version: 2 });
    });

    it('an error is never turned into 304', async () => {
      const res = await client('GET', `${DOCUMENTS}/${randomUUID()}`, { headers: { 'if-none-match': '*' } });
      expect(res.statusCode).toBe(404);
    });
  });

  describe('If-Match', () => {
    it('a write with the current ETag succeeds; without If-Match it is unconditional', async () => {
      const { url, etag, documentId } = await newDocument();
      expect((await retitle(url, 'One', { 'if-match': `"other", ${etag}` })).statusCode).toBe(200);
      expect((await retitle(url, 'Two')).statusCode).toBe(200);
      expect((await retitle(url, 'Three', { 'if-match': '*' })).statusCode).toBe(200);
      expect(await stored(documentId)).toEqual({ title: 'Three', version: 4 });
    });

    it.each([
      ['en', 'The resource was changed by someone else; read it again and retry.'],
      ['ru', 'Ресурс уже изменён другим запросом; прочитайте его заново и повторите.'],
    ] as const)(
      'a stale ETag is 409 CONCURRENT_MODIFICATION and changes nothing (%s)',
      async (lang, detail) => {
        const { url, etag, documentId } = await newDocument();
        await retitle(url, 'Someone else', { 'if-match': etag });
        const res = await retitle(url, 'Mine', { 'if-match': etag }, lang);
        expectProblem(res, 409, 'CONCURRENT_MODIFICATION', {
          status: 409,
          type: 'urn:problem:order-service:concurrent-modification',
          detail,
        });
        expect(await stored(documentId)).toEqual({ title: 'Someone else', version: 2 });
      },
    );

    it('If-Match uses strong comparison: a weak tag never matches', async () => {
      const { url, etag } = await newDocument();
      const res = await retitle(url, 'Mine', { 'if-match': `W/${etag}` });
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('CONCURRENT_MODIFICATION');
    });

    it('an If-Match that is no entity tag is 400 VALIDATION_ERROR on the field If-Match', async () => {
      const { url, documentId } = await newDocument();
      const res = await retitle(url, 'Mine', { 'if-match': `${documentId}.v1` }, 'en');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'VALIDATION_ERROR',
        violations: [
          {
            field: 'If-Match',
            code: 'INVALID_FORMAT',
            message: 'The value does not have the expected format ("<entity-tag>").',
          },
        ],
      });
    });
  });
});
