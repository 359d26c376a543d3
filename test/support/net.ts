import * as fs from 'node:fs';
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

/**
 * Which of the processes `pids` holds the TCP connection whose end on this host has the local port `port`
 * (a receiver sees it as the request's remote port). Linux only: the socket's inode in /proc/net/tcp{,6},
 * then the process with a descriptor of that socket.
 */
export function ownerOfConnection(port: number, pids: readonly number[]): number | undefined {
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length > 9 && columns[1].endsWith(local)) inodes.add(`socket:[${columns[9]}]`);
    }
  }
  return pids.find((pid) =>
    fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false; // closed meanwhile
      }
    }),
  );
}
