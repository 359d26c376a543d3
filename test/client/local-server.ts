import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the local server received it. */
export interface Received {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the server does with a request: answer it, drop the connection without answering, or never answer. */
export type Reply = { status: number; headers?: Record<string, string>; body?: unknown } | 'drop' | 'hang';

export interface LocalServer {
  baseUrl: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1 that answers each request with `reply(request, index)`, for the client's own
 * tests of what it sends and how it handles answers (the service itself is tested through the client in the
 * e2e suite). A JSON body is sent as JSON; `Content-Type` defaults to `application/json`.
 */
export async function localServer(reply: (request: Received, index: number) => Reply): Promise<LocalServer> {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: Received = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(entry);
      const answer = reply(entry, received.length - 1);
      if (answer === 'hang') return;
      if (answer === 'drop') {
        request.socket.destroy();
        return;
      }
      const text =
        answer.body === undefined
          ? ''
          : typeof answer.body === 'string'
            ? answer.body
            : JSON.stringify(answer.body);
      response.writeHead(answer.status, {
        ...(text ? { 'content-type': 'application/json' } : {}),
        ...answer.headers,
      });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A Problem Details answer as the service gives it. */
export function problem(
  status: number,
  code: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Reply {
  return {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
    body: {
      type: `urn:problem:order-service:${code.toLowerCase().replace(/_/g, '-')}`,
      title: 'Error',
      status,
      detail: `${code} happened.`,
      instance: 'urn:uuid:4b0c8f9e-3d1a-4f57-8a43-0f5f3c1d2e6b',
      code,
      traceId: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      ...extra,
    },
  };
}
