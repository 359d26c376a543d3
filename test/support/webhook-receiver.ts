import * as http from 'node:http';
import * as https from 'node:https';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { Certificate } from './tls';

/** A request a receiver got, as it came. */
export interface ReceivedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The client's port: the same for requests on one kept-alive connection. */
  remotePort: number;
}

/** How the receiver answers a request (after reading its body). */
export type Answer = (request: ReceivedRequest, response: http.ServerResponse) => void;

const noContent: Answer = (_, response) => {
  response.writeHead(204).end();
};

/**
 * A real HTTP (or, with a certificate, HTTPS) server on 127.0.0.1 standing for a customer's webhook receiver:
 * it records every request and answers as told (204 unless told otherwise).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** Every TCP connection made to it (a proxy or a refused destination must see none). */
  connections = 0;

  private constructor(
    private readonly server: http.Server,
    private readonly protocol: 'http' | 'https',
  ) {}

  static async start(options: { answer?: Answer; tls?: Certificate } = {}): Promise<WebhookReceiver> {
    const answer = options.answer ?? noContent;
    const server = options.tls
      ? https.createServer({ key: options.tls.key, cert: options.tls.cert })
      : http.createServer();
    const receiver = new WebhookReceiver(server, options.tls ? 'https' : 'http');
    server.on('connection', () => receiver.connections++);
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received: ReceivedRequest = {
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks),
          remotePort: request.socket.remotePort ?? 0,
        };
        receiver.requests.push(received);
        answer(received, response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** A URL of this receiver on `host` (a name a test's resolver maps to 127.0.0.1, or the address itself). */
  url(path = '/webhooks', host = '127.0.0.1'): string {
    return `${this.protocol}://${host}:${this.port}${path}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Verifies a received request as a customer's receiver would, with the Standard Webhooks library: the
 * payload it returns, or the library's error.
 */
export function verifyWebhook(secret: string, request: ReceivedRequest): unknown {
  return new Webhook(secret).verify(request.body.toString('utf8'), request.headers as Record<string, string>);
}
