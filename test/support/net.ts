import * as net from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago, for a server a test starts. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}
