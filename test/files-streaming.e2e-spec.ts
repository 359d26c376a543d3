import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../src/platform/config/app-config';
import { readManifests } from './deploy/kustomize';
import { MiB, multipartEnvelope } from './support/multipart';
import { freePort } from './support/net';
import { bearer } from './support/tokens';
import { answers200, until } from './support/wait';

/**
 * Uploads over real HTTP to the built app (`node dist/src/main.js`) in a process of its own: `app.inject`
 * hands the app whole payloads, so only a real socket shows that an upload streams (the server's memory
 * stays flat) and that an oversized one is answered while the client is still sending.
 */
const ROOT = path.resolve(__dirname, '..');
const FILE_LIMIT = 10 * MiB;
const PDF_SIGNATURE = Buffer.from('%PDF-1.7\n');

/** The resident set size of a process, in bytes, as the kernel reports it. */
function rssOf(pid: number): number {
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) * 1024;
}

/** A PDF of `size` bytes, produced piece by piece (the client never holds it whole either). */
function* pdfPieces(size: number, piece = 64 * 1024): Generator<Buffer> {
  const filler = randomBytes(piece);
  for (let offset = 0; offset < size; offset += piece) {
    const chunk = offset === 0 ? Buffer.concat([PDF_SIGNATURE, filler]) : filler;
    yield chunk.subarray(0, Math.min(piece, size - offset));
  }
}

/** NODE_OPTIONS and MALLOC_ARENA_MAX as the api Deployment (deploy/k8s/base/api.yaml) sets them. */
function apiMemorySettings(): Record<string, string> {
  const [deployment] = readManifests(path.join(ROOT, 'deploy/k8s/base/api.yaml')).filter(
    (manifest) => manifest.kind === 'Deployment',
  );
  const spec = deployment.spec as {
    template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } };
  };
  const settings: Record<string, string> = {};
  for (const { name, value } of spec.template.spec.containers[0].env ?? []) {
    if ((name === 'NODE_OPTIONS' || name === 'MALLOC_ARENA_MAX') && value !== undefined)
      settings[name] = value;
  }
  expect(Object.keys(settings).sort()).toEqual(['MALLOC_ARENA_MAX', 'NODE_OPTIONS']);
  return settings;
}

describe('uploads over real HTTP, against the built app in its own process', () => {
  let child: ChildProcess;
  let port: number;
  let output = '';
  let authorization: string;
  let orderId: string;
  let db: Client;

  /** The database's clock now: blobs made from then on are this test's (other suites' files stay out). */
  const clock = async () => (await db.query<{ at: Date }>('SELECT clock_timestamp() AS at')).rows[0].at;
  const blobsSince = async (since: Date) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM blobs WHERE created_at >= $1', [since]))
      .rows[0].n;

  beforeAll(async () => {
    port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // The memory settings of production's api pods: the RSS below is theirs, not Node's defaults'.
      ...apiMemorySettings(),
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_LIMIT: '1000000',
      LOG_LEVEL: 'warn',
    };
    // The run's database (global setup), external or embedded: the child is one more client of it.
    child = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    await answers200(`http://127.0.0.1:${port}/health`, {
      failsWhen: () => (child.exitCode === null ? undefined : `the app exited: ${output}`),
    });
    authorization = await bearer(loadConfig(env), ['CUSTOMER']);
    const created = await fetch(`http://127.0.0.1:${port}/api/v1/orders`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: '{}',
    });
    expect(created.status).toBe(201);
    orderId = ((await created.json()) as { orderId: string }).orderId;
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  /** Streams one upload of a `size`-byte PDF with http.request; resolves with the status and body. */
  function upload(size: number): Promise<{ status: number; body: string }> {
    const { head, tail, contentType } = multipartEnvelope({
      name: 'file',
      filename: 'big.pdf',
      contentType: 'application/pdf',
    });
    return new Promise((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/api/v1/orders/${orderId}/attachments`,
          // A connection of its own, closed after the answer: nothing kept alive once the test ends.
          agent: false,
          headers: {
            authorization,
            'content-type': contentType,
            'content-length': head.length + size + tail.length,
          },
        },
        (response) => {
          let body = '';
          response.on('data', (d: Buffer) => (body += d.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      request.on('error', reject);
      void (async () => {
        const write = (chunk: Buffer) =>
          request.write(chunk) ? Promise.resolve() : new Promise<void>((r) => request.once('drain', r));
        await write(head);
        for (const piece of pdfPieces(size)) await write(piece);
        await write(tail);
        request.end();
      })();
    });
  }

  it('takes 20 uploads of 10 MiB at once while its RSS stays under 300 MB', async () => {
    const pid = child.pid as number;
    const samples: number[] = [rssOf(pid)];
    const sampler = setInterval(() => samples.push(rssOf(pid)), 50);
    let answers: Array<{ status: number; body: string }>;
    try {
      answers = await Promise.all(Array.from({ length: 20 }, () => upload(FILE_LIMIT)));
    } finally {
      clearInterval(sampler);
    }
    for (const answer of answers) {
      expect(answer.status).toBe(201);
      expect(JSON.parse(answer.body)).toMatchObject({ size: FILE_LIMIT, contentType: 'application/pdf' });
    }
    const peak = Math.max(...samples);
    // Far more samples than uploads: the peak was watched throughout, not guessed from a few points.
    expect(samples.length).toBeGreaterThan(20);
    // In MB, so a failure shows the peak.
    expect(Math.round(peak / 1e6)).toBeLessThan(300);
  });

  /**
   * One upload over a raw socket, so the test decides what is sent and when, and sees the answer the moment
   * it arrives: `sentWhenAnswered` is how many bytes the client had written by then.
   */
  class RawUpload {
    readonly socket: net.Socket;
    readonly envelope = multipartEnvelope({
      name: 'file',
      filename: 'big.pdf',
      contentType: 'application/pdf',
    });
    readonly requestHead: Buffer;
    readonly closed: Promise<void>;
    sent = 0;
    sentWhenAnswered?: number;
    response = '';

    constructor(readonly size: number) {
      const bodyLength = this.envelope.head.length + size + this.envelope.tail.length;
      this.requestHead = Buffer.from(
        `POST /api/v1/orders/${orderId}/attachments HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          `Authorization: ${authorization}\r\nAccept-Language: en\r\n` +
          `Content-Type: ${this.envelope.contentType}\r\nContent-Length: ${bodyLength}\r\n\r\n`,
      );
      this.socket = net.connect(port, '127.0.0.1');
      // Writes after the server closed fail with EPIPE / ECONNRESET: expected here.
      this.socket.on('error', () => undefined);
      this.socket.on('data', (d: Buffer) => {
        this.sentWhenAnswered ??= this.sent;
        this.response += d.toString();
      });
      this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    }

    get answered(): boolean {
      return this.sentWhenAnswered !== undefined;
    }

    /** Writes a chunk, resolving once the socket takes more (or is gone). */
    send(chunk: Buffer): Promise<void> {
      this.sent += chunk.length;
      if (this.socket.write(chunk)) return Promise.resolve();
      return Promise.race([new Promise<void>((r) => this.socket.once('drain', () => r())), this.closed]);
    }

    /**
     * Sends the request head, the part's head and the file, 64 KiB a millisecond at most (a slow client),
     * until the server answers. The closing boundary is never sent.
     */
    async sendFile(): Promise<void> {
      await this.send(this.requestHead);
      await this.send(this.envelope.head);
      for (const piece of pdfPieces(this.size)) {
        if (this.answered || this.socket.destroyed) return;
        await this.send(piece);
        await new Promise((r) => setTimeout(r, 1));
      }
    }

    /** Resolves when `done()` holds. */
    async waitUntil(done: () => boolean): Promise<void> {
      await until('the upload to be answered and closed', done);
    }
  }

  it('answers 10 MiB + 1 byte with 413 before the client has sent the whole body, and closes cleanly', async () => {
    const since = await clock();
    // The client holds back the closing boundary, the body's last bytes: an answer means the server
    // decided without the whole body.
    const upload = new RawUpload(FILE_LIMIT + 1);
    await upload.sendFile();
    await upload.waitUntil(() => upload.answered && upload.socket.destroyed);

    expect(upload.sentWhenAnswered).toBeDefined();
    expect(upload.sentWhenAnswered).toBeLessThanOrEqual(
      upload.requestHead.length + upload.envelope.head.length + upload.size,
    );
    expect(upload.response).toMatch(/^HTTP\/1\.1 413 /);
    expect(upload.response).toMatch(/\r\nconnection: close\r\n/i);
    expect(upload.response).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(upload.response).toContain('"code":"FILE_TOO_LARGE"');
    expect(upload.response).toContain('The file is larger than the allowed 10 MiB.');
    // The server closed the connection after its answer, though the body never ended.
    expect(upload.socket.destroyed).toBe(true);
    expect(await blobsSince(since)).toBe(0);
  });

  it('stops reading a much larger upload at the limit: the client is answered after ~10 MiB of 50', async () => {
    const upload = new RawUpload(50 * MiB);
    await upload.sendFile();
    await upload.waitUntil(() => upload.answered && upload.socket.destroyed);
    expect(upload.response).toMatch(/^HTTP\/1\.1 413 /);
    // Socket buffers hold a few MiB at most: the server stopped reading at the limit, 40 MiB early.
    expect(upload.sentWhenAnswered).toBeLessThan(FILE_LIMIT + 8 * MiB);
    expect(upload.socket.destroyed).toBe(true);
    // No request failed on the server's side (nothing logged as an error), though clients went away.
    expect(output).not.toMatch(/"level":50/);
  });

  it('keeps the answer for a client that reads it late: the server drains instead of resetting the connection', async () => {
    // The client goes on sending after the 413 and reads nothing until it has sent everything. A server
    // that closed its socket with the client's bytes unread would reset the connection, and the client's
    // kernel would drop the answer it had not read yet.
    const upload = new RawUpload(30 * MiB);
    upload.socket.pause();
    await upload.sendFile();
    upload.socket.resume();
    await upload.waitUntil(() => upload.answered && upload.socket.destroyed);
    expect(upload.response).toMatch(/^HTTP\/1\.1 413 /);
    expect(upload.response).toContain('"code":"FILE_TOO_LARGE"');
    expect(upload.socket.destroyed).toBe(true);
  });

  it("keeps Fastify's own 413 for a JSON body over 1 MiB for a client that reads it late", async () => {
    // Fastify refuses the body from its Content-Length, before reading it; the same lingering close must
    // keep that answer for a client that only reads once it has sent all 3 MiB.
    const size = 3 * MiB;
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    let response = '';
    socket.on('data', (d: Buffer) => (response += d.toString()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.pause();
    const send = (chunk: Buffer | string): Promise<void> =>
      socket.write(chunk)
        ? Promise.resolve()
        : Promise.race([new Promise<void>((r) => socket.once('drain', () => r())), closed]);
    await send(
      `POST /api/v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\n` +
        `Accept-Language: en\r\nIdempotency-Key: ${randomUUID()}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${size}\r\n\r\n{"note":"`,
    );
    const filler = Buffer.alloc(64 * 1024, 'a');
    for (let sent = 0; sent < size - 16 && !socket.destroyed; sent += filler.length) {
      await send(filler);
      await new Promise((r) => setTimeout(r, 1));
    }
    socket.resume();
    await until('the answer and the close', () => response !== '' && socket.destroyed);
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(response).toContain('"code":"PAYLOAD_TOO_LARGE"');
    expect(socket.destroyed).toBe(true);
  });
});
