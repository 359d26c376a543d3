import { randomUUID } from 'node:crypto';
import type {
  MediaTypeObject,
  OpenAPIObject,
  OperationObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import type { LightMyRequestResponse } from 'fastify';
import { DataSource } from 'typeorm';
import { ApiClient, apiClient, withIdempotencyKey } from './support/http-client';
import {
  FormPart,
  MiB,
  multipartBody,
  MultipartBody,
  sampleFile,
  SampleKind,
  sha256,
} from './support/multipart';
import { createOrder, ORDERS } from './support/orders';
import { expectProblem, expectProblemEnvelope, fieldsAndCodes, violationsOf } from './support/problem';
import { bootTestApp, TestApp } from './support/test-app';
import { callerToken, CallerToken, bearer } from './support/tokens';

const TYPES: Record<'pdf' | 'png' | 'jpeg', string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
};
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

interface Attachment {
  attachmentId: string;
  fileName: string;
  contentType: string;
  size: number;
  description?: string;
  uploadedAt: string;
}

const filePart = (kind: SampleKind, options: Partial<FormPart> = {}): FormPart => ({
  name: 'file',
  filename: `sample.${kind}`,
  contentType: TYPES[kind as keyof typeof TYPES] ?? 'application/octet-stream',
  data: sampleFile(kind),
  ...options,
});

describe('files: order attachments and avatars', () => {
  let t: TestApp;
  let db: DataSource;
  let alice: CallerToken;
  let bob: CallerToken;
  let adminAuth: string;
  let asAlice: ApiClient;
  let asBob: ApiClient;
  let asAdmin: ApiClient;
  let orderId: string;

  const attachments = (id = orderId) => `${ORDERS}/${id}/attachments`;

  /** POSTs a multipart body (parts, or a prepared body) as `authorization`. */
  function post(
    authorization: string,
    url: string,
    body: FormPart[] | MultipartBody,
    options: { lang?: 'ru' | 'en'; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    const { payload, contentType } = Array.isArray(body) ? multipartBody(body) : body;
    return t.app.inject({
      method: 'POST',
      url,
      payload,
      headers: {
        authorization,
        'content-type': contentType,
        ...(options.lang ? { 'accept-language': options.lang } : {}),
        ...options.headers,
      },
    });
  }

  async function upload(parts: FormPart[], id = orderId): Promise<Attachment> {
    const res = await post(alice.authorization, attachments(id), parts);
    if (res.statusCode !== 201) throw new Error(`upload answered ${res.statusCode}: ${res.body}`);
    return res.json<Attachment>();
  }

  const count = async (sql: string, params: unknown[] = []): Promise<number> =>
    ((await db.query(sql, params)) as Array<{ n: number }>)[0].n;
  /** The database's clock now: blobs made from then on are this test's (other suites' files stay out). */
  const clock = async () => ((await db.query('SELECT clock_timestamp() AS at')) as Array<{ at: Date }>)[0].at;
  const blobsSince = (since: Date) =>
    count('SELECT count(*)::int AS n FROM blobs WHERE created_at >= $1', [since]);

  beforeAll(async () => {
    t = await bootTestApp();
    db = t.app.get(DataSource);
    alice = await callerToken(t.config);
    bob = await callerToken(t.config);
    adminAuth = await bearer(t.config, ['ADMIN']);
    asAlice = apiClient(t, alice.authorization);
    asBob = apiClient(t, bob.authorization);
    asAdmin = apiClient(t, adminAuth);
    orderId = (await createOrder(asAlice)).orderId;
  });
  afterAll(() => t.close());

  describe('upload and download', () => {
    it.each(['pdf', 'png', 'jpeg'] as const)(
      'a %s comes back byte for byte, with its type, length and name',
      async (kind) => {
        const bytes = sampleFile(kind, 300 * 1024 + 17);
        const res = await post(alice.authorization, attachments(), [filePart(kind, { data: bytes })]);
        expect(res.statusCode).toBe(201);
        const body = res.json<Attachment>();
        expect(body).toEqual({
          attachmentId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          fileName: `sample.${kind}`,
          contentType: TYPES[kind],
          size: bytes.length,
          uploadedAt: expect.stringMatching(TIMESTAMP),
        });
        expect(res.headers.location).toBe(`${attachments()}/${body.attachmentId}`);

        const download = await asAlice('GET', String(res.headers.location));
        expect(download.statusCode).toBe(200);
        expect(download.headers['content-type']).toBe(TYPES[kind]);
        expect(download.headers['content-length']).toBe(String(bytes.length));
        expect(download.headers['content-disposition']).toBe(`attachment; filename="sample.${kind}"`);
        expect(sha256(download.rawPayload)).toBe(sha256(bytes));
      },
    );

    it('lists an order’s attachments as an offset page, oldest first, with descriptions', async () => {
      const { orderId: id } = await createOrder(asAlice);
      const first = await upload([filePart('pdf'), { name: 'description', data: 'Счёт за март' }], id);
      const second = await upload([filePart('png'), { name: 'description', data: '' }], id);
      expect(first.description).toBe('Счёт за март');
      expect(second).not.toHaveProperty('description');

      const page = await asAlice('GET', `${attachments(id)}?page=1&size=1`);
      expect(page.statusCode).toBe(200);
      expect(page.json()).toEqual({ content: [first], page: 1, size: 1, totalElements: 2, totalPages: 2 });
      expect((await asAlice('GET', `${attachments(id)}?page=2&size=1`)).json().content).toEqual([second]);
      const empty = await asAlice('GET', attachments((await createOrder(asAlice)).orderId));
      expect(empty.json()).toEqual({ content: [], page: 1, size: 20, totalElements: 0, totalPages: 0 });
    });

    it('takes a description of exactly 500 characters (counted as characters, not bytes)', async () => {
      const description = 'ё'.repeat(499) + '😀';
      expect((await upload([{ name: 'description', data: description }, filePart('pdf')])).description).toBe(
        description,
      );
    });

    it('decides the type by the bytes when the part declares application/octet-stream', async () => {
      const uploaded = await upload([filePart('jpeg', { contentType: 'application/octet-stream' })]);
      expect(uploaded.contentType).toBe('image/jpeg');
    });

    it('accepts exactly 10 MiB', async () => {
      const bytes = sampleFile('pdf', 10 * MiB);
      const uploaded = await upload([filePart('pdf', { data: bytes })]);
      expect(uploaded.size).toBe(10 * MiB);
      const download = await asAlice('GET', `${attachments()}/${uploaded.attachmentId}`);
      expect(sha256(download.rawPayload)).toBe(sha256(bytes));
    });
  });

  describe('limits enforced while streaming', () => {
    it('refuses 10 MiB + 1 byte with 413 FILE_TOO_LARGE and stores nothing', async () => {
      const since = await clock();
      const res = await post(
        alice.authorization,
        attachments(),
        [filePart('pdf', { data: sampleFile('pdf', 10 * MiB + 1) })],
        { lang: 'en' },
      );
      expectProblemEnvelope(res, 413, 'FILE_TOO_LARGE', {
        title: 'Content Too Large',
        detail: 'The file is larger than the allowed 10 MiB.',
      });
      expect(await blobsSince(since)).toBe(0);
    });

    it.each([
      [
        'an ELF executable declared image/png',
        filePart('elf', { contentType: 'image/png', filename: 'cat.png' }),
      ],
      [
        'a Windows executable declared as octet-stream',
        filePart('mz', { contentType: 'application/octet-stream' }),
      ],
      ['plain text', { name: 'file', filename: 'a.txt', contentType: 'text/plain', data: 'hello' }],
      ['an empty file', { name: 'file', filename: 'a.pdf', contentType: 'application/pdf', data: '' }],
    ])('refuses %s with 415 UNSUPPORTED_FILE_TYPE, storing nothing', async (_name, part) => {
      const since = await clock();
      const res = await post(alice.authorization, attachments(), [part], { lang: 'en' });
      expectProblemEnvelope(res, 415, 'UNSUPPORTED_FILE_TYPE', {
        title: 'Unsupported Media Type',
        detail: 'This file type is not allowed; allowed: application/pdf, image/png, image/jpeg.',
      });
      expect(await blobsSince(since)).toBe(0);
    });

    it('refuses a file whose bytes contradict its declared type', async () => {
      const res = await post(
        alice.authorization,
        attachments(),
        [filePart('pdf', { contentType: 'image/png' })],
        {
          lang: 'en',
        },
      );
      expectProblem(res, 415, 'UNSUPPORTED_FILE_TYPE', {
        detail: "The file's content is application/pdf, which is not the type the upload declared.",
      });
    });
  });

  describe('file names are served safely', () => {
    /** Uploads a PDF under a name and returns what the client then sees: the name and the header. */
    async function roundTrip(part: Partial<FormPart>): Promise<{ fileName: string; disposition: string }> {
      const uploaded = await upload([filePart('pdf', { filename: undefined, ...part })]);
      const download = await asAlice('GET', `${attachments()}/${uploaded.attachmentId}`);
      expect(download.statusCode).toBe(200);
      expect(download.headers).not.toHaveProperty('x-injected');
      return { fileName: uploaded.fileName, disposition: String(download.headers['content-disposition']) };
    }

    it.each([
      [
        'quotes and a semicolon',
        { filename: '"; x=1.pdf' },
        '"; x=1.pdf',
        `attachment; filename="__ x=1.pdf"; filename*=UTF-8''%22%3B%20x%3D1.pdf`,
      ],
      ['a path', { filename: '../../etc/passwd' }, 'passwd', 'attachment; filename="passwd"'],
      [
        'a Windows path',
        { filename: 'C:\\Users\\me\\scan.pdf' },
        'scan.pdf',
        'attachment; filename="scan.pdf"',
      ],
      [
        'Cyrillic (raw UTF-8)',
        { filename: 'отчёт.pdf' },
        'отчёт.pdf',
        `attachment; filename="_____.pdf"; filename*=UTF-8''%D0%BE%D1%82%D1%87%D1%91%D1%82.pdf`,
      ],
      [
        'Cyrillic (RFC 8187 filename*)',
        { filenameStar: 'отчёт.pdf' },
        'отчёт.pdf',
        `attachment; filename="_____.pdf"; filename*=UTF-8''%D0%BE%D1%82%D1%87%D1%91%D1%82.pdf`,
      ],
      [
        'CR/LF as browsers escape it',
        { filename: 'evil%0D%0AX-Injected: 1.pdf' },
        'evil%0D%0AX-Injected: 1.pdf',
        `attachment; filename="evil_0D_0AX-Injected: 1.pdf"; filename*=UTF-8''evil%250D%250AX-Injected%3A%201.pdf`,
      ],
      [
        'tabs, escape and NUL characters',
        { filenameStar: 'a\tb\u001b[31m\u0000c.pdf' },
        'ab[31mc.pdf',
        'attachment; filename="ab[31mc.pdf"',
      ],
      ['an empty name', { filename: '' }, 'file.pdf', 'attachment; filename="file.pdf"'],
    ])('%s', async (_case, part, fileName, disposition) => {
      expect(await roundTrip(part)).toEqual({ fileName, disposition });
    });

    it('a name carrying a real CR/LF never reaches a header', async () => {
      // The multipart parser drops a part whose name holds a bare line break, so the upload has no file…
      const res = await post(alice.authorization, attachments(), [
        filePart('pdf', { filename: undefined, filenameStar: 'evil\r\nX-Injected: 1.pdf' }),
      ]);
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(fieldsAndCodes(violationsOf(res))).toEqual([{ field: 'file', code: 'REQUIRED' }]);
      // …and a stored name holding one (written by anything else) is still served as one safe header.
      const uploaded = await upload([filePart('pdf')]);
      await db.query('UPDATE attachments SET file_name = $2 WHERE attachment_id = $1', [
        uploaded.attachmentId,
        'evil\r\nX-Injected: 1.pdf',
      ]);
      const download = await asAlice('GET', `${attachments()}/${uploaded.attachmentId}`);
      expect(download.statusCode).toBe(200);
      expect(download.headers).not.toHaveProperty('x-injected');
      expect(download.headers['content-disposition']).toBe(
        `attachment; filename="evil__X-Injected: 1.pdf"; filename*=UTF-8''evil%0D%0AX-Injected%3A%201.pdf`,
      );
    });
  });
  describe('the form is validated part by part', () => {
    const violations = (res: LightMyRequestResponse) => fieldsAndCodes(violationsOf(res));

    it('names every problem at once: missing file, unknown parts, a description over 500 characters', async () => {
      const res = await post(alice.authorization, attachments(), [
        { name: 'description', data: 'x'.repeat(501) },
        { name: 'comment', data: 'hello' },
        { name: 'title', data: 'x' },
      ]);
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(violations(res)).toEqual(
        expect.arrayContaining([
          { field: 'file', code: 'REQUIRED' },
          { field: 'description', code: 'MAX_LENGTH' },
          { field: 'comment', code: 'UNKNOWN_FIELD' },
          { field: 'title', code: 'UNKNOWN_FIELD' },
        ]),
      );
      expect(violationsOf(res)).toHaveLength(4);
    });

    it('refuses a second file part, and discards the file already stored', async () => {
      const since = await clock();
      const res = await post(alice.authorization, attachments(), [filePart('pdf'), filePart('png')]);
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(violations(res)).toEqual([{ field: 'file', code: 'MAX_ITEMS' }]);
      expect(await blobsSince(since)).toBe(0);
    });

    it('refuses an unknown file part after the file, and a description sent as a file', async () => {
      const unknown = await post(alice.authorization, attachments(), [
        filePart('pdf'),
        filePart('png', { name: 'x' }),
      ]);
      expect(violations(unknown)).toEqual([{ field: 'x', code: 'UNKNOWN_FIELD' }]);
      const described = await post(alice.authorization, attachments(), [
        filePart('pdf'),
        filePart('pdf', { name: 'description' }),
      ]);
      expect(violations(described)).toEqual([{ field: 'description', code: 'UNKNOWN_FIELD' }]);
    });

    it('refuses a file sent as a text part, naming it once', async () => {
      const res = await post(alice.authorization, attachments(), [
        { name: 'file', data: '%PDF-1.7 but as text', contentType: 'application/pdf' },
      ]);
      expect(violations(res)).toEqual([{ field: 'file', code: 'INVALID_TYPE' }]);
    });

    it('refuses a form of more than 10 parts as a whole', async () => {
      const parts = Array.from({ length: 11 }, (_, i) => ({ name: `p${i}`, data: 'x' }));
      const res = await post(alice.authorization, attachments(), [...parts, filePart('pdf')]);
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(violations(res)).toEqual([{ field: '', code: 'MAX_ITEMS' }]);
    });

    it('refuses a description holding U+0000', async () => {
      const res = await post(alice.authorization, attachments(), [
        filePart('pdf'),
        { name: 'description', data: 'a\u0000b' },
      ]);
      expect(violations(res)).toEqual([{ field: 'description', code: 'INVALID_FORMAT' }]);
    });

    it.each([
      ['without a boundary', 'multipart/form-data', multipartBody([filePart('pdf')]).payload],
      [
        'cut off in the file',
        undefined,
        multipartBody([filePart('pdf', { data: sampleFile('pdf', 100_000) })]).payload.subarray(0, 50_000),
      ],
      ['missing its closing boundary', undefined, multipartBody([filePart('pdf')]).payload.subarray(0, -10)],
      ['with no delimiter at all', undefined, Buffer.from('just some bytes, not a form')],
    ])('refuses a body %s: 400 INVALID_MULTIPART, nothing stored', async (_case, contentType, payload) => {
      const since = await clock();
      const boundary = /^--([^\r]+)\r\n/.exec(payload.toString('latin1'))?.[1] ?? 'b';
      const res = await post(alice.authorization, attachments(), {
        payload,
        contentType: contentType ?? `multipart/form-data; boundary=${boundary}`,
      });
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(violations(res)).toEqual([{ field: '', code: 'INVALID_MULTIPART' }]);
      expect(await blobsSince(since)).toBe(0);
    });

    it('takes multipart only: JSON here is 415, multipart on a JSON route is 415 too', async () => {
      const json = await asAlice('POST', attachments(), { body: { file: 'x' } });
      expectProblem(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const form = await post(alice.authorization, ORDERS, [{ name: 'note', data: 'x' }], {
        headers: withIdempotencyKey(),
      });
      expectProblem(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
      // An unknown route stays 404 whatever its body.
      expectProblem(
        await post(alice.authorization, `${ORDERS}/${orderId}/nothing`, [filePart('pdf')]),
        404,
        'RESOURCE_NOT_FOUND',
      );
    });

    it('refuses an Idempotency-Key (400 naming the header) rather than replaying another file’s answer', async () => {
      const res = await post(alice.authorization, attachments(), [filePart('pdf')], {
        headers: withIdempotencyKey(),
      });
      expectProblem(res, 400, 'VALIDATION_ERROR');
      expect(violations(res)).toEqual([{ field: 'Idempotency-Key', code: 'INVALID_VALUE' }]);
    });
  });

  describe('access and lifecycle', () => {
    it('another customer gets 403 on every operation; an unknown order is 404', async () => {
      const { attachmentId } = await upload([filePart('pdf')]);
      const one = `${attachments()}/${attachmentId}`;
      for (const res of [
        await post(bob.authorization, attachments(), [filePart('pdf')]),
        await asBob('GET', attachments()),
        await asBob('GET', one),
        await asBob('DELETE', one),
      ]) {
        expectProblem(res, 403, 'ACCESS_DENIED');
      }
      const unknown = randomUUID();
      for (const res of [
        await post(alice.authorization, attachments(unknown), [filePart('pdf')]),
        await asAlice('GET', attachments(unknown)),
        await asAlice('GET', `${attachments(unknown)}/${attachmentId}`),
        await asAlice('DELETE', `${attachments(unknown)}/${attachmentId}`),
      ]) {
        expectProblem(res, 404, 'ORDER_NOT_FOUND');
      }
      // Still there for its owner.
      expect((await asAlice('GET', one)).statusCode).toBe(200);
    });

    it('an admin uploads, reads and deletes on anyone’s order, in any order state', async () => {
      const { orderId: id } = await createOrder(asAlice);
      expect(
        (await asAlice('POST', `${ORDERS}/${id}/cancel`, { body: { reason: 'no longer needed' } }))
          .statusCode,
      ).toBe(200);
      const res = await post(adminAuth, attachments(id), [filePart('png')]);
      expect(res.statusCode).toBe(201);
      const url = String(res.headers.location);
      expect((await asAdmin('GET', url)).statusCode).toBe(200);
      expect((await asAlice('GET', url)).statusCode).toBe(200);
      expect((await asAdmin('DELETE', url)).statusCode).toBe(204);
    });

    it('DELETE removes the attachment and its bytes; then it is 404 ATTACHMENT_NOT_FOUND', async () => {
      const { attachmentId } = await upload([filePart('jpeg')]);
      const url = `${attachments()}/${attachmentId}`;
      const [{ blob_key: blobKey }] = (await db.query(
        'SELECT blob_key FROM attachments WHERE attachment_id = $1',
        [attachmentId],
      )) as Array<{ blob_key: string }>;
      const res = await asAlice('DELETE', url);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expectProblem(await asAlice('GET', url, { lang: 'en' }), 404, 'ATTACHMENT_NOT_FOUND', {
        detail: `Attachment ${attachmentId} does not exist.`,
      });
      expectProblem(await asAlice('DELETE', url), 404, 'ATTACHMENT_NOT_FOUND');
      expect(await count('SELECT count(*)::int AS n FROM blobs WHERE blob_key = $1', [blobKey])).toBe(0);
      expect((await asAlice('GET', attachments())).json().content).not.toContainEqual(
        expect.objectContaining({ attachmentId }),
      );
    });

    it('an attachment of another order is 404, not another order’s file', async () => {
      const { attachmentId } = await upload([filePart('pdf')]);
      const { orderId: other } = await createOrder(asAlice);
      expectProblem(
        await asAlice('GET', `${attachments(other)}/${attachmentId}`),
        404,
        'ATTACHMENT_NOT_FOUND',
      );
    });

    it('deleting an order deletes its attachments and their bytes in the same transaction', async () => {
      const { orderId: id } = await createOrder(asAlice);
      await upload([filePart('pdf', { data: sampleFile('pdf', 600 * 1024) })], id);
      await upload([filePart('png')], id);
      const keys = (
        (await db.query('SELECT blob_key FROM attachments WHERE order_id = $1', [id])) as Array<{
          blob_key: string;
        }>
      ).map((row) => row.blob_key);
      expect(keys).toHaveLength(2);
      expect((await asAlice('DELETE', `${ORDERS}/${id}`)).statusCode).toBe(204);
      expect(await count('SELECT count(*)::int AS n FROM attachments WHERE order_id = $1', [id])).toBe(0);
      expect(await count('SELECT count(*)::int AS n FROM blobs WHERE blob_key = ANY($1)', [keys])).toBe(0);
      expect(
        await count('SELECT count(*)::int AS n FROM blob_chunks WHERE blob_key = ANY($1::uuid[])', [keys]),
      ).toBe(0);
      expectProblem(await asAlice('GET', attachments(id)), 404, 'ORDER_NOT_FOUND');
    });

    it('an order that may not be deleted keeps its attachments', async () => {
      const { orderId: id } = await createOrder(asAlice);
      await upload([filePart('pdf')], id);
      // A precondition that fails after the hooks would have run must roll them back too: a stale If-Match.
      const res = await asAlice('DELETE', `${ORDERS}/${id}`, { headers: { 'if-match': `"${id}.v99"` } });
      expectProblem(res, 409, 'CONCURRENT_MODIFICATION');
      expect((await asAlice('GET', attachments(id))).json().totalElements).toBe(1);
    });
  });

  describe('avatars', () => {
    const ME = '/api/v1/users/me/avatar';
    const of = (userId: string) => `/api/v1/users/${userId}/avatar`;

    it('round trip: upload, download, replace (the earlier bytes go), delete', async () => {
      const carol = await callerToken(t.config);
      const asCarol = apiClient(t, carol.authorization);
      const first = sampleFile('png', 50_000);
      const res = await post(carol.authorization, ME, [filePart('png', { data: first, filename: 'me.png' })]);
      expect(res.statusCode).toBe(201);
      expect(res.headers.location).toBe(of(carol.sub));
      const avatar = res.json<Attachment>();
      expect(avatar).toEqual({
        attachmentId: expect.any(String),
        fileName: 'me.png',
        contentType: 'image/png',
        size: first.length,
        uploadedAt: expect.stringMatching(TIMESTAMP),
      });
      const download = await asCarol('GET', ME);
      expect(download.statusCode).toBe(200);
      expect(download.headers['content-type']).toBe('image/png');
      expect(download.headers['content-disposition']).toBe('attachment; filename="me.png"');
      expect(sha256(download.rawPayload)).toBe(sha256(first));

      const [{ blob_key: firstKey }] = (await db.query(
        'SELECT blob_key FROM attachments WHERE avatar_of = $1',
        [carol.sub],
      )) as Array<{ blob_key: string }>;
      const second = sampleFile('jpeg', 70_000);
      const replaced = await post(carol.authorization, ME, [
        filePart('jpeg', { data: second, filename: 'new.jpg' }),
      ]);
      expect(replaced.statusCode).toBe(201);
      expect(replaced.json().attachmentId).not.toBe(avatar.attachmentId);
      const now = await asCarol('GET', of(carol.sub));
      expect(now.headers['content-type']).toBe('image/jpeg');
      expect(sha256(now.rawPayload)).toBe(sha256(second));
      expect(
        await count('SELECT count(*)::int AS n FROM attachments WHERE avatar_of = $1', [carol.sub]),
      ).toBe(1);
      expect(await count('SELECT count(*)::int AS n FROM blobs WHERE blob_key = $1', [firstKey])).toBe(0);

      expect((await asCarol('DELETE', ME)).statusCode).toBe(204);
      expectProblem(await asCarol('GET', ME, { lang: 'en' }), 404, 'ATTACHMENT_NOT_FOUND', {
        detail: 'The user has no avatar.',
      });
      expectProblem(await asCarol('DELETE', ME), 404, 'ATTACHMENT_NOT_FOUND');
    });

    it('an admin reads anyone’s avatar; another customer may not (403)', async () => {
      const dave = await callerToken(t.config);
      const picture = sampleFile('jpeg', 20_000);
      expect((await post(dave.authorization, ME, [filePart('jpeg', { data: picture })])).statusCode).toBe(
        201,
      );
      const byAdmin = await asAdmin('GET', of(dave.sub));
      expect(byAdmin.statusCode).toBe(200);
      expect(sha256(byAdmin.rawPayload)).toBe(sha256(picture));
      expectProblem(await asBob('GET', of(dave.sub)), 403, 'ACCESS_DENIED');
      expectProblem(await asAdmin('GET', of(randomUUID()), { lang: 'en' }), 404, 'USER_NOT_FOUND');
      expectProblem(await asAdmin('GET', of(bob.sub)), 404, 'ATTACHMENT_NOT_FOUND');
    });

    it('takes PNG or JPEG only, up to 10 MiB, and the file part only', async () => {
      const erin = await callerToken(t.config);
      expectProblem(
        await post(erin.authorization, ME, [filePart('pdf')], { lang: 'en' }),
        415,
        'UNSUPPORTED_FILE_TYPE',
        {
          detail: 'This file type is not allowed; allowed: image/png, image/jpeg.',
        },
      );
      expectProblem(
        await post(erin.authorization, ME, [filePart('png', { data: sampleFile('png', 10 * MiB + 1) })]),
        413,
        'FILE_TOO_LARGE',
      );
      const described = await post(erin.authorization, ME, [
        filePart('png'),
        { name: 'description', data: 'me' },
      ]);
      expect(fieldsAndCodes(violationsOf(described))).toEqual([
        { field: 'description', code: 'UNKNOWN_FIELD' },
      ]);
      expectProblem(await apiClient(t, erin.authorization)('GET', ME), 404, 'ATTACHMENT_NOT_FOUND');
    });
  });
  describe('every error is Problem Details, in ru (the default) and en', () => {
    interface ErrorCase {
      name: string;
      status: number;
      code: string;
      /** Sends the request with Accept-Language `lang`, or none. */
      send: (lang?: 'ru' | 'en') => Promise<LightMyRequestResponse>;
      en: string;
      ru: string;
    }
    // One id per case, so the three answers of a case describe the same request.
    const [unknownOrder, unknownAttachment, unknownUser] = [randomUUID(), randomUUID(), randomUUID()];
    const cases: ErrorCase[] = [
      {
        name: 'no token',
        status: 401,
        code: 'UNAUTHORIZED',
        send: (lang) => post('', attachments(), [filePart('pdf')], { lang }),
        en: 'A valid bearer token is required.',
        ru: 'Требуется действительный токен доступа (Bearer).',
      },
      {
        name: 'missing file part',
        status: 400,
        code: 'VALIDATION_ERROR',
        send: (lang) =>
          post(alice.authorization, attachments(), [{ name: 'description', data: 'x' }], { lang }),
        en: 'The request is invalid; see violations for each problem.',
        ru: 'Запрос некорректен; подробности в списке нарушений.',
      },
      {
        name: 'no boundary',
        status: 400,
        code: 'VALIDATION_ERROR',
        send: (lang) =>
          post(
            alice.authorization,
            attachments(),
            { payload: Buffer.from('x'), contentType: 'multipart/form-data' },
            { lang },
          ),
        en: 'The request is invalid; see violations for each problem.',
        ru: 'Запрос некорректен; подробности в списке нарушений.',
      },
      {
        name: 'another customer’s order',
        status: 403,
        code: 'ACCESS_DENIED',
        send: (lang) => post(bob.authorization, attachments(), [filePart('pdf')], { lang }),
        en: 'You are not allowed to perform this operation.',
        ru: 'У вас нет прав на эту операцию.',
      },
      {
        name: 'unknown order',
        status: 404,
        code: 'ORDER_NOT_FOUND',
        send: (lang) => asAlice('GET', attachments(unknownOrder), { lang }),
        en: 'Order',
        ru: 'Заказ',
      },
      {
        name: 'unknown attachment',
        status: 404,
        code: 'ATTACHMENT_NOT_FOUND',
        send: (lang) => asAlice('GET', `${attachments()}/${unknownAttachment}`, { lang }),
        en: 'does not exist.',
        ru: 'не существует.',
      },
      {
        name: 'no avatar',
        status: 404,
        code: 'ATTACHMENT_NOT_FOUND',
        send: (lang) => asBob('GET', '/api/v1/users/me/avatar', { lang }),
        en: 'The user has no avatar.',
        ru: 'У пользователя нет аватара.',
      },
      {
        name: 'unknown user',
        status: 404,
        code: 'USER_NOT_FOUND',
        send: (lang) => asAdmin('GET', `/api/v1/users/${unknownUser}/avatar`, { lang }),
        en: 'does not exist.',
        ru: 'не существует.',
      },
      {
        name: 'file over 10 MiB',
        status: 413,
        code: 'FILE_TOO_LARGE',
        send: (lang) =>
          post(
            alice.authorization,
            attachments(),
            [filePart('png', { data: sampleFile('png', 10 * MiB + 1) })],
            {
              lang,
            },
          ),
        en: 'The file is larger than the allowed 10 MiB.',
        ru: 'Файл больше допустимых 10 MiB.',
      },
      {
        name: 'executable',
        status: 415,
        code: 'UNSUPPORTED_FILE_TYPE',
        send: (lang) =>
          post(alice.authorization, attachments(), [filePart('elf', { contentType: 'image/png' })], { lang }),
        en: 'This file type is not allowed; allowed: application/pdf, image/png, image/jpeg.',
        ru: 'Этот тип файла недопустим; допустимы: application/pdf, image/png, image/jpeg.',
      },
      {
        name: 'declared type contradicted',
        status: 415,
        code: 'UNSUPPORTED_FILE_TYPE',
        send: (lang) =>
          post(alice.authorization, attachments(), [filePart('png', { contentType: 'image/jpeg' })], {
            lang,
          }),
        en: "The file's content is image/png, which is not the type the upload declared.",
        ru: 'Содержимое файла — image/png, это не тот тип, который указан при загрузке.',
      },
      {
        name: 'JSON instead of a form',
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
        send: (lang) => asAlice('POST', '/api/v1/users/me/avatar', { body: {}, lang }),
        en: 'This content type is not supported here; send multipart/form-data.',
        ru: 'Этот тип содержимого здесь не поддерживается; используйте multipart/form-data.',
      },
    ];

    it.each(cases)('$name: $status $code', async ({ send, status, code, en, ru }) => {
      const answers = { ru: await send('ru'), en: await send('en'), default: await send() };
      for (const [lang, res] of Object.entries(answers)) {
        const body = expectProblemEnvelope(res, status, code);
        expect(res.headers['content-language']).toBe(lang === 'en' ? 'en' : 'ru');
        expect(body.detail).toContain(lang === 'en' ? en : ru);
      }
      expect(answers.ru.json().title).toBe(answers.en.json().title);
      expect(answers.default.json().detail).toBe(answers.ru.json().detail);
      const messages = (res: LightMyRequestResponse) => violationsOf(res).map((v) => v.message);
      if (code === 'VALIDATION_ERROR') expect(messages(answers.ru)).not.toEqual(messages(answers.en));
    });
  });
  describe('OpenAPI', () => {
    let document: OpenAPIObject;
    const op = (path: string, method: 'get' | 'post' | 'delete') =>
      document.paths[path][method] as OperationObject;
    const response = (o: OperationObject, status: number) => o.responses[String(status)] as ResponseObject;
    const multipart = (o: OperationObject) =>
      (o.requestBody as RequestBodyObject).content['multipart/form-data'] as MediaTypeObject;

    beforeAll(async () => {
      document = (await t.app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    });

    it('names the operations as the API does, under the parent resource’s tag', () => {
      const found = Object.entries(document.paths)
        .filter(([path]) => /attachments|avatar/.test(path))
        .flatMap(([path, item]) =>
          (['get', 'post', 'delete'] as const)
            .filter((method) => item[method])
            .map((method) => {
              const o = item[method] as OperationObject;
              return `${method.toUpperCase()} ${path} ${o.operationId} ${o.tags?.join()}`;
            }),
        );
      expect(found.sort()).toEqual(
        [
          'POST /api/v1/orders/{orderId}/attachments uploadOrderAttachment Orders',
          'GET /api/v1/orders/{orderId}/attachments getOrderAttachments Orders',
          'GET /api/v1/orders/{orderId}/attachments/{attachmentId} downloadOrderAttachment Orders',
          'DELETE /api/v1/orders/{orderId}/attachments/{attachmentId} deleteOrderAttachment Orders',
          'POST /api/v1/users/me/avatar uploadCurrentUserAvatar Users',
          'GET /api/v1/users/me/avatar downloadCurrentUserAvatar Users',
          'DELETE /api/v1/users/me/avatar deleteCurrentUserAvatar Users',
          'GET /api/v1/users/{userId}/avatar downloadUserAvatar Users',
        ].sort(),
      );
    });

    it('declares the multipart bodies with part names, size, types and maxLength, and 413/415 problems', () => {
      const upload = op('/api/v1/orders/{orderId}/attachments', 'post');
      expect(multipart(upload)).toEqual({
        schema: {
          type: 'object',
          required: ['file'],
          properties: {
            file: expect.objectContaining({ type: 'string', format: 'binary', maxLength: 10 * MiB }),
            description: expect.objectContaining({ type: 'string', maxLength: 500 }),
          },
          // Another part is UNKNOWN_FIELD, as another field of a JSON body is.
          additionalProperties: false,
        },
        encoding: { file: { contentType: 'application/pdf, image/png, image/jpeg' } },
      });
      expect(response(upload, 201).headers).toHaveProperty('Location');
      for (const [status, code] of [
        [413, 'FILE_TOO_LARGE'],
        [415, 'UNSUPPORTED_FILE_TYPE'],
      ] as const) {
        expect(response(upload, status).description).toContain(code);
        expect(response(upload, status).content?.['application/problem+json'].schema).toMatchObject({
          allOf: [
            { $ref: '#/components/schemas/Problem' },
            { properties: { code: { $ref: '#/components/schemas/UploadOrderAttachmentErrorCode' } } },
          ],
        });
      }
      const avatar = multipart(op('/api/v1/users/me/avatar', 'post'));
      expect(Object.keys((avatar.schema as SchemaObject).properties ?? {})).toEqual(['file']);
      expect(avatar.encoding).toEqual({ file: { contentType: 'image/png, image/jpeg' } });
    });

    it('declares downloads as binary bodies of their types and size, with Content-Disposition and Content-Length', () => {
      for (const [path, types] of [
        [
          '/api/v1/orders/{orderId}/attachments/{attachmentId}',
          ['application/pdf', 'image/png', 'image/jpeg'],
        ],
        ['/api/v1/users/{userId}/avatar', ['image/png', 'image/jpeg']],
      ] as const) {
        const ok = response(op(path, 'get'), 200);
        expect(Object.keys(ok.content ?? {})).toEqual(types);
        for (const type of types)
          expect(ok.content?.[type].schema).toEqual({
            type: 'string',
            format: 'binary',
            maxLength: 10 * MiB,
          });
        expect(Object.keys(ok.headers ?? {})).toEqual(
          expect.arrayContaining(['Content-Disposition', 'Content-Length']),
        );
      }
    });
  });
});
