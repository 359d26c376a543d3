// CPU per request, read from /proc around a fixed number of requests: steadier than requests per second on
// a shared machine, because it counts only the cycles the measured processes themselves spent. Used by
// bench:orders and bench:lists to compare the service with the bare baseline in interleaved rounds.
import autocannon from 'autocannon';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** User and system CPU a process (all its threads) has used, in microseconds. */
export function cpuTimes(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    user: (Number(fields[11]) * 1e6) / TICKS_PER_SECOND,
    system: (Number(fields[12]) * 1e6) / TICKS_PER_SECOND,
  };
}

/** User + system CPU a process has used, in microseconds. */
export function cpuMicros(pid) {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

export function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
}

/**
 * The CPU of the PostgreSQL backends serving one database (pg_stat_activity), so other databases' work on
 * the shared server is not counted. A backend that appears during a round counts from zero.
 */
export class PostgresCpu {
  constructor(adminClient, database) {
    this.admin = adminClient;
    this.database = database;
  }

  async snapshot() {
    const { rows } = await this.admin.query(
      "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'",
      [this.database],
    );
    const cpu = new Map();
    for (const { pid } of rows) {
      try {
        cpu.set(pid, cpuMicros(pid));
      } catch {
        // ended between the query and the read
      }
    }
    return cpu;
  }

  static spent(before, after) {
    let total = 0;
    for (const [pid, micros] of after) total += micros - (before.get(pid) ?? 0);
    return total;
  }
}

/**
 * Starts a Node server pinned to core 0 (taskset execs node in place, so the child's pid is the server's).
 * BENCH_NODE names another node binary for the servers (e.g. Node 24, which production runs).
 */
/**
 * A server pinned to `core` (0 by default: the runner and its load generator keep the other one), at
 * `niceness` (0 by default; 19 yields the core to the runner whenever it needs it).
 */
export function startServer(root, args, env, nodeFlags = [], core = '0', niceness = 0) {
  const node = [process.env.BENCH_NODE ?? process.execPath, ...nodeFlags, ...args];
  return spawn('taskset', ['-c', core, 'nice', '-n', String(niceness), ...node], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export async function stopServer(child) {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

export async function waitUntilUp(url, headers = {}, child = undefined) {
  // Up to two minutes: on a loaded shared machine a server's start-up alone can take most of one.
  for (let i = 0; i < 1200; i += 1) {
    if (child && child.exitCode !== null) throw new Error(`the server for ${url} exited (${child.exitCode})`);
    try {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/**
 * One measured round: `amount` requests at `connections` concurrency against `base`, with the server's CPU
 * and its database backends' CPU read before and after. `request(n)` gives the n-th request's
 * { method, path, headers, body }.
 */
export async function measureRound({ base, pid, postgres, poolerPid, amount, connections, request }) {
  let n = 0;
  const pgBefore = postgres ? await postgres.snapshot() : undefined;
  const poolerBefore = poolerPid ? cpuMicros(poolerPid) : undefined;
  const cpuBefore = cpuTimes(pid);
  const started = process.hrtime.bigint();
  // autocannon resolves on its once-a-second tick, not at the last response: throughput is timed to the
  // last response, or a round of 4.1 s would count as 5 s.
  let lastResponse = started;
  const run = autocannon({
    url: base,
    connections,
    amount,
    requests: [
      {
        setupRequest: (req) => {
          const r = request(n++);
          return { ...req, method: r.method ?? 'GET', path: r.path, headers: r.headers, body: r.body };
        },
      },
    ],
  });
  const latencies = [];
  run.on('response', (_client, _status, _bytes, responseTimeMs) => {
    lastResponse = process.hrtime.bigint();
    latencies.push(responseTimeMs);
  });
  const result = await run;
  const seconds = Number(lastResponse - started) / 1e9;
  const cpuAfter = cpuTimes(pid);
  const poolerAfter = poolerPid ? cpuMicros(poolerPid) : undefined;
  const pgAfter = postgres ? await postgres.snapshot() : undefined;
  const completed = result['2xx'] + result.non2xx;
  return {
    nodeUs: (cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) / completed,
    nodeSystemUs: (cpuAfter.system - cpuBefore.system) / completed,
    pgUs: postgres ? PostgresCpu.spent(pgBefore, pgAfter) / completed : undefined,
    poolerUs: poolerPid ? (poolerAfter - poolerBefore) / completed : undefined,
    rps: result['2xx'] / seconds,
    p50Ms: result.latency.p50,
    p95Ms: latencies.sort((a, b) => a - b)[Math.max(0, Math.ceil(latencies.length * 0.95) - 1)],
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median and range of a series, rounded to `digits` decimals. */
export function spread(values, digits = 0) {
  const f = 10 ** digits;
  const r = (x) => Math.round(x * f) / f;
  return { median: r(median(values)), min: r(Math.min(...values)), max: r(Math.max(...values)) };
}

/**
 * Interleaved rounds of one scenario on every target (the order alternates each round, so neither side
 * always runs on a warmer or quieter machine). Returns per target the median and range of each metric, and
 * each other target's ratios to the baseline computed within each round.
 */
export async function interleave({ rounds, targets, scenario }) {
  const perTarget = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const measured = await measureRound({
        base: target.base,
        pid: target.pid,
        postgres: target.postgres,
        poolerPid: target.poolerPid,
        amount: scenario.amount,
        connections: scenario.connections,
        request: (n) => scenario.request(target, n),
      });
      if (measured.non2xx > 0 || measured.errors > 0) {
        throw new Error(
          `${scenario.name} on ${target.name}: ${measured.non2xx} non-2xx, ${measured.errors} errors`,
        );
      }
      perTarget[target.name].push(measured);
    }
  }
  const summary = {};
  for (const [name, runs] of Object.entries(perTarget)) {
    summary[name] = {
      nodeCpuUsPerRequest: spread(runs.map((r) => r.nodeUs)),
      // The kernel's share of it (socket reads and writes, epoll): what an extra round trip costs.
      nodeSystemCpuUsPerRequest: spread(runs.map((r) => r.nodeSystemUs)),
      ...(runs[0].pgUs !== undefined ? { postgresCpuUsPerRequest: spread(runs.map((r) => r.pgUs)) } : {}),
      // PgBouncer's own CPU, for a target behind it (BENCH_POOLER=1, bench/pgbouncer.mjs).
      ...(runs[0].poolerUs !== undefined
        ? { poolerCpuUsPerRequest: spread(runs.map((r) => r.poolerUs)) }
        : {}),
      requestsPerSecond: spread(runs.map((r) => r.rps)),
      p50Ms: spread(
        runs.map((r) => r.p50Ms),
        1,
      ),
      p99Ms: spread(
        runs.map((r) => r.p99Ms),
        1,
      ),
    };
  }
  // Within each round: each target against the baseline, and a target that names one in `comparedWith`
  // (the service through a pooler) against that one too.
  const ratiosTo = (runs, reference) => {
    const ratios = (metric) =>
      spread(
        runs.map((s, i) => s[metric] / reference[i][metric]),
        2,
      );
    return {
      nodeCpu: ratios('nodeUs'),
      ...(runs[0].pgUs !== undefined ? { postgresCpu: ratios('pgUs') } : {}),
      requestsPerSecond: ratios('rps'),
    };
  };
  const baseline = perTarget.baseline;
  for (const target of targets) {
    const runs = perTarget[target.name];
    if (target.name !== 'baseline' && baseline) summary[target.name].ratios = ratiosTo(runs, baseline);
    if (target.comparedWith) {
      summary[target.name].ratiosTo = {
        [target.comparedWith]: ratiosTo(runs, perTarget[target.comparedWith]),
      };
    }
  }
  return summary;
}

/** A short warm-up (JIT, pools, caches) that is not measured. */
export async function warmUp(base, request, seconds = 3, connections = 20) {
  let n = 0;
  await autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (req) => {
          const r = request(n++);
          return { ...req, method: r.method ?? 'GET', path: r.path, headers: r.headers, body: r.body };
        },
      },
    ],
  });
}

/**
 * BENCH_PORT_BASE (default 3100): the servers of a benchmark listen on this port plus a fixed offset each, so
 * runs of different checkouts on one host need not share ports.
 */
export function benchPort(offset) {
  return String(Number(process.env.BENCH_PORT_BASE ?? 3100) + offset);
}

/**
 * BENCH_BEFORE_DIST=<dist>[,<name>=<dist>…]: other builds (their dist/ directories inside this checkout, e.g.
 * under bench/results/, so they load the same dependencies) to run beside the service in the same rounds,
 * to compare a change with the code before it, or with an alternative; an entry without a name is `before`.
 */
export function otherBuilds() {
  const value = process.env.BENCH_BEFORE_DIST;
  if (!value) return [];
  return value.split(',').map((entry) => {
    const [name, dir] = entry.includes('=') ? entry.split('=') : ['before', entry];
    return { name, main: path.join(path.resolve(dir), 'src/main.js') };
  });
}
