// BENCH_POOLER=1 (bench:orders, bench:lists): the service also runs through PgBouncer in transaction mode,
// as platform teams run it (docs/scaling.md): Debian's PgBouncer started here on a free port as the postgres
// OS user (it refuses root), with the settings CI's pooler stage uses (.ci/run), the service behind it with
// DB_PREPARED_STATEMENTS=false and MIGRATIONS_RUN=false, and the session limits made the role's defaults in
// the bench's database as the migrations Job makes them (dist/scripts/session-limits.js), since the pooler
// drops the startup options that carry them on a direct connection. Stopped, its files and the role defaults
// removed, at the end.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export const poolerWanted = () => process.env.BENCH_POOLER === '1';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function whichPgbouncer() {
  for (const candidate of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']) {
    try {
      readFileSync(candidate);
      return candidate;
    } catch {
      // not there
    }
  }
  throw new Error('BENCH_POOLER=1 needs PgBouncer: apt-get install -y pgbouncer (Debian 12 has 1.18)');
}

async function waitUntilAccepting(url) {
  for (let i = 0; i < 100; i += 1) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`PgBouncer at ${url} does not answer`);
}

/**
 * Starts PgBouncer in front of the server of `databaseUrl` and makes the service's session limits the role's
 * defaults in that database (`serviceEnv` is the service's environment: its limits). Resolves to the URL of
 * that database through the pooler, the pooler's pid (to count its CPU) and `stop()`.
 */
export async function startPooler(root, databaseUrl, serviceEnv) {
  execFileSync(process.execPath, [path.join(root, 'dist/scripts/session-limits.js')], {
    cwd: root,
    env: { ...process.env, ...serviceEnv, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const server = new URL(databaseUrl);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-pgbouncer-'));
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  chownSync(dir, id('-u'), id('-g'));
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    `[databases]
* = host=${server.hostname} port=${server.port || 5432} user=${decodeURIComponent(server.username)} password=${decodeURIComponent(server.password)}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
ignore_startup_parameters = extra_float_digits,options
max_client_conn = 1000
default_pool_size = 20
logfile = ${dir}/pgbouncer.log
pidfile = ${dir}/pgbouncer.pid
`,
  );
  execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', `${whichPgbouncer()} -d ${dir}/pgbouncer.ini`], {
    stdio: 'inherit',
  });
  const pooled = new URL(databaseUrl);
  pooled.host = `127.0.0.1:${port}`;
  await waitUntilAccepting(pooled.toString());
  const pid = Number(readFileSync(path.join(dir, 'pgbouncer.pid'), 'utf8').trim());
  // Interrupted (Ctrl-C), the bench leaves no PgBouncer running; the role's defaults it leaves are harmless to
  // a direct connection, which asks for its limits at connect.
  const onSignal = () => {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone
    }
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    url: pooled.toString(),
    pid,
    async stop() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      try {
        process.kill(pid, 'SIGTERM');
        for (let i = 0; i < 50; i += 1) {
          process.kill(pid, 0);
          await new Promise((r) => setTimeout(r, 100));
        }
      } catch {
        // gone
      }
      rmSync(dir, { recursive: true, force: true });
      // Leave the role as it was: a direct connection asks for its limits at connect anyway.
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const { rows } = await client.query('SELECT current_database() AS database');
      await client.query(`ALTER ROLE CURRENT_USER IN DATABASE "${rows[0].database}" RESET ALL`);
      await client.end();
    },
  };
}
