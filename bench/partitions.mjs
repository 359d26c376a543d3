// npm run bench:partitions — events kept by day partitions (docs/decisions/0153-events-partitioned-by-day.md)
// at scale, on a database of its own seeded to BENCH_PARTITION_EVENTS (10,000,000) events over 31 UTC days
// (the oldest day whole, today's up to the run's start), in three parts:
// 1. feed: a page of 100 (GET /api/v1/events?cursor=…&size=100 as admin, through a started server, and the
//    feed service's own call in this process) from random positions at the start, middle and end of the
//    stored range, unfiltered, by one of 1,000 customers and by a rare type (TASK_FAILED, 1 in 1,000): p50 and
//    p95 per position band. Goal: p95 <= 20 ms at any position.
// 2. retention: the service's retention (EventMaintenance.applyRetention, EVENT_RETENTION_DAYS=29: the oldest
//    day alone is past) timed, with the table's total size and the partitions' dead tuples before and after;
//    and, for comparison, the retention that deleted rows (EventsRepository.purgeRowsBefore in batches of
//    1,000, as a partition that is not one day is still purged) on a copy of the next day: its time, the dead
//    tuples it leaves and the VACUUM they need. Goal: <= 1 s with no bloat left.
// 3. creates while retention drops a day: keyed POST /api/v1/orders (20 connections) with and without a
//    drop of the oldest day started during the round, in interleaved rounds (the day seeded again before each
//    round): the creates' p95 and the ratio within each round. Goal: <= 1.1x.
// The server runs on core 0 (taskset); no Redis (the jobs' in-process schedules do not fire during a run).
// Needs PostgreSQL (BENCH_DATABASE_URL or DATABASE_URL). The database is dropped at the end
// (BENCH_KEEP_DATABASE=1 keeps it, for another look).
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  benchPort,
  measureRound,
  PostgresCpu,
  spread,
  startServer,
  stopServer,
  waitUntilUp,
  warmUp,
} from './cpu-meter.mjs';
import { deployedMemorySettings } from './deployed-memory-settings.mjs';

// The servers and the in-process app run without Redis: no keys to leave behind, and the maintenance job's
// in-process schedule first fires an hour after start, so only this bench drops days during a run.
delete process.env.REDIS_URL;
delete process.env.REDIS_CLUSTER_NODES;

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => require(path.join(root, 'dist/src', p));
const { signAccessToken } = dist('platform/auth/token-signer.js');
const { databaseOptions } = dist('platform/database/database-options.js');
const { runMigrationsLocked } = dist('platform/database/migrations-runner.js');
const { dayPartitionName } = dist('platform/database/time-partitions.js');
const { createHttpApp } = dist('bootstrap/http-app.js');
const { loadConfig } = dist('platform/config/app-config.js');
const { EventMaintenance } = dist('modules/events/event-maintenance.service.js');
const { EventFeedService } = dist('modules/events/event-feed.service.js');
const { EventsRepository } = dist('modules/events/persistence/events.repository.js');
const { Transactions } = dist('platform/database/transactions.js');
const { DataSource } = require('typeorm');

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
if (!SERVER_URL) {
  console.error('bench:partitions needs BENCH_DATABASE_URL or DATABASE_URL (a PostgreSQL server)');
  process.exit(1);
}
const EVENTS = Number(process.env.BENCH_PARTITION_EVENTS ?? 10_000_000);
const DAYS = 31;
const FEED_PAGES = Number(process.env.BENCH_FEED_PAGES ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CREATES = Number(process.env.BENCH_CREATES ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
/** When, after a round's creates begin, the drop starts (they take a few seconds on two cores). */
const DROP_AFTER_MS = Number(process.env.BENCH_DROP_AFTER_MS ?? 1000);
/** BENCH_PARTS: which of the parts to run (default all). */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'feed,retention,creates').split(','));
const SEED_WORKERS = Number(process.env.BENCH_SEED_WORKERS ?? 2);
const KEEP_DATABASE = process.env.BENCH_KEEP_DATABASE === '1';
const DATABASE = `order_service_bench_partitions_${randomUUID().slice(0, 8)}`;
const SECRET = 'bench-secret-bench-secret-bench-secret-42';
const WEBHOOK_SECRET_KEY = Buffer.alloc(32, 1).toString('base64');
const RETENTION_DAYS = DAYS - 2;
const DAY_MS = 86_400_000;
/** The longest a seeded event's transaction stays open before its commit numbers it. */
const MAX_COMMIT_DELAY_S = 2;
const uuid = (prefix, n) => `00000000-0000-4000-${prefix}-${n.toString(16).padStart(12, '0')}`;
const CUSTOMER = uuid('9000', 1);

const loads = [];
const sampleLoad = () => loads.push(os.loadavg()[0]);
sampleLoad();

const serverUrl = new URL(SERVER_URL);
const databaseUrl = (() => {
  const url = new URL(SERVER_URL);
  url.pathname = `/${DATABASE}`;
  return url.toString();
})();
const postgresAdmin = new pg.Client({ connectionString: serverUrl.toString() });
await postgresAdmin.connect();
await postgresAdmin.query(`CREATE DATABASE ${DATABASE}`);
const db = new pg.Pool({ connectionString: databaseUrl, max: SEED_WORKERS + 2 });
db.on('error', () => undefined);

// The stored range: the first instant of the oldest day through a minute before the run, event g (1…EVENTS)
// at an even step; numbered in order of commit, its commit a pseudo-random delay (mostly short, a few near
// MAX_COMMIT_DELAY_S) after its start, so neighbouring days overlap in numbers as numbering at commit makes
// them.
const startedAt = new Date();
const today = new Date(Math.floor(startedAt.getTime() / DAY_MS) * DAY_MS);
const firstDay = new Date(today.getTime() - (DAYS - 1) * DAY_MS);
const rangeEnd = new Date(startedAt.getTime() - 60_000);
const step = (rangeEnd.getTime() - firstDay.getTime()) / 1000 / EVENTS;
/** Rows beyond a day's own on either side: more than any commit delay can move an event's number past. */
const slack = Math.ceil(MAX_COMMIT_DELAY_S / step) + 2;

/**
 * One day's events (those of the stored range falling on it) into a table of its own, then attached (its
 * indexes built then), as the seed's own way of loading in bulk, with the marks the maintenance job would
 * have recorded each hour of that day. An event's number is its rank by commit among a stretch of events
 * reaching `slack` past the day on both sides, plus the events before the stretch, all of which committed
 * before any in it: the same number whichever day's statement computes it.
 */
async function seedDay(day) {
  const from = day.getTime();
  const to = from + DAY_MS;
  const firstG = Math.max(1, Math.floor((from - firstDay.getTime()) / 1000 / step) + 1 - slack);
  const lastG = Math.min(EVENTS, Math.ceil((to - firstDay.getTime()) / 1000 / step) + 1 + slack);
  const name = dayPartitionName('events', day);
  const client = await db.connect();
  try {
    await client.query(`DROP TABLE IF EXISTS ${name}`);
    await client.query(`CREATE TABLE ${name} (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    if (firstG <= lastG) {
      await client.query(
        `WITH w AS MATERIALIZED (
           SELECT g, $1::timestamptz + make_interval(secs => (g - 1) * $4::float8) AS occurred_at,
                  $5::bigint - 1 + row_number() OVER (
                    ORDER BY (g - 1) * $4::float8 + $7::float8 * power(((g * 2654435761) % 1000003) / 1000003.0, 4), g
                  ) AS sequence
             FROM generate_series($5::bigint, $6::bigint) g
         ), seeded AS (
           INSERT INTO ${name} (event_id, sequence, type, occurred_at, order_id, task_id, customer_id, actor_id, data)
           SELECT gen_random_uuid(), sequence,
                  CASE WHEN g % 1000 = 0 THEN 'TASK_FAILED'
                       ELSE (ARRAY['ORDER_CREATED','ORDER_UPDATED','ORDER_CONFIRMED'])[1 + g % 3] END,
                  occurred_at,
                  CASE WHEN g % 1000 = 0 THEN NULL ELSE gen_random_uuid() END,
                  CASE WHEN g % 1000 = 0 THEN gen_random_uuid() END,
                  ('00000000-0000-4000-9000-' || lpad(to_hex(1 + g % 1000), 12, '0'))::uuid, NULL,
                  jsonb_build_object('orderId', gen_random_uuid(), 'status', 'CREATED', 'totalAmount', 30,
                    'items', jsonb_build_array(jsonb_build_object('productId', gen_random_uuid(), 'quantity', 1,
                      'unitPrice', 10, 'productName', 'Product ' || g % 100)),
                    'createdAt', occurred_at, 'updatedAt', occurred_at, 'version', 1)
             FROM w WHERE occurred_at >= $2 AND occurred_at < $3
         ), by_hour AS (
           -- The first hour each event is wholly before (its start plus the longest delay): a mark recorded
           -- then has every event numbered after it begun at or after that hour less a minute.
           SELECT date_trunc('hour', occurred_at + make_interval(secs => $7::float8)) + interval '1 hour' AS h,
                  max(sequence) AS s
             FROM w
            -- Only numbers no event outside the stretch can have shifted.
            WHERE (g >= $5 + $9 OR $5 = 1) AND (g <= $6 - $9 OR $6 = $10)
            GROUP BY 1
         ), marks AS (
           SELECT h, max(s) OVER (ORDER BY h) AS s FROM by_hour
         )
         INSERT INTO event_sequence_marks (sequence, floor, recorded_at)
         SELECT s, h - interval '1 minute', h FROM marks
          WHERE h > $2 AND h <= $3 AND h <= $8
         ON CONFLICT (sequence) DO NOTHING`,
        [
          firstDay,
          new Date(from),
          new Date(to),
          step,
          firstG,
          lastG,
          MAX_COMMIT_DELAY_S,
          rangeEnd,
          slack,
          EVENTS,
        ],
      );
    }
    await client.query(
      `ALTER TABLE events ATTACH PARTITION ${name} FOR VALUES FROM ('${new Date(from).toISOString()}') TO ('${new Date(to).toISOString()}')`,
    );
  } finally {
    client.release();
  }
  return name;
}

async function prepareDatabase() {
  const started = Date.now();
  const dataSource = await new DataSource(databaseOptions(databaseUrl)).initialize();
  await runMigrationsLocked(dataSource);
  await dataSource.query(`INSERT INTO users (user_id, roles) VALUES ($1, '{CUSTOMER}')`, [CUSTOMER]);
  await dataSource.query(
    `INSERT INTO products (product_id, name, price, stock, status)
     SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 'Product ' || g, 10 + g, 1000000000, 'ACTIVE'
     FROM generate_series(1, 2) g`,
  );
  await dataSource.destroy();
  // The steady state 30 days after the migration: the table from before partitioning (empty here) wholly
  // past and dropped, one partition a day. The migration made the days from its cut on; the days before it
  // are made here, seeded.
  await db.query('DROP TABLE events_legacy');
  await db.query('CREATE EXTENSION pgstattuple');
  const { rows } = await db.query(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'events'::regclass AND c.relname ~ '^events_p[0-9]{8}$' ORDER BY 1`,
  );
  const cut = rows[0].name.slice('events_p'.length);
  const cutDay = new Date(`${cut.slice(0, 4)}-${cut.slice(4, 6)}-${cut.slice(6, 8)}T00:00:00Z`);
  // The migration's first mark (number 0, floored at the migration's time) is replaced by the seeded ones.
  await db.query('DELETE FROM event_sequence_marks');
  await db.query(
    `INSERT INTO event_sequence_marks (sequence, floor, recorded_at) VALUES (0, $1::timestamptz - interval '1 minute', $1)`,
    [firstDay],
  );
  const days = [];
  for (let at = firstDay.getTime(); at < cutDay.getTime(); at += DAY_MS) days.push(new Date(at));
  const queue = [...days];
  await Promise.all(
    Array.from({ length: SEED_WORKERS }, async () => {
      for (let day = queue.shift(); day; day = queue.shift()) await seedDay(day);
    }),
  );
  await db.query(`SELECT setval('events_sequence', $1)`, [EVENTS]);
  const seeded = Date.now();
  await db.query('VACUUM ANALYZE');
  const [{ count }] = (await db.query('SELECT count(*)::int AS count FROM events')).rows;
  if (count !== EVENTS) throw new Error(`seeded ${count} events, not ${EVENTS}`);
  const figures = {
    events: count,
    days: days.length,
    seedSeconds: Math.round((seeded - started) / 1000),
    vacuumAnalyzeSeconds: Math.round((Date.now() - seeded) / 1000),
    tableSize: await tableSize(),
  };
  console.log(JSON.stringify({ seeded: figures }));
  return figures;
}

/** Heap, indexes and TOAST of every partition of `events`. */
async function tableSize() {
  const [{ bytes }] = (
    await db.query(
      `SELECT sum(pg_total_relation_size(relid))::bigint AS bytes FROM pg_partition_tree('events') WHERE isleaf`,
    )
  ).rows;
  return Number(bytes);
}

/**
 * Dead tuples in `relations` (an expression over pg_class `c`): as the statistics count them, once every
 * backend's counts have been flushed (an idle backend reports within 10 s), and as the pages hold them
 * (pgstattuple_approx: pages the visibility map marks all-visible are skipped, the others read).
 */
async function deadTuples(relations = "c.relname ~ '^events_(p[0-9]{8}|default)$'") {
  await sleep(11_000);
  const client = await db.connect();
  try {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const [row] = (
      await client.query(
        `SELECT COALESCE(sum(s.n_dead_tup), 0)::bigint AS counted,
                COALESCE(sum((pgstattuple_approx(c.oid)).dead_tuple_count), 0)::bigint AS in_pages
           FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
          WHERE c.relkind = 'r' AND ${relations}`,
      )
    ).rows;
    return { counted: Number(row.counted), inPages: Number(row.in_pages) };
  } finally {
    client.release();
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes) => Math.round(bytes / 1e5) / 10;
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] * 10) / 10;
};
const cursorAt = (sequence) => Buffer.from(`seq:${sequence}`).toString('base64url');

const adminAuth = {
  authorization: `Bearer ${await signAccessToken(SECRET, { sub: randomUUID(), roles: ['ADMIN'], ttlSeconds: 7200 })}`,
};
const customer = {
  authorization: `Bearer ${await signAccessToken(SECRET, { sub: CUSTOMER, roles: ['CUSTOMER'], ttlSeconds: 7200 })}`,
};
const postgres = new PostgresCpu(postgresAdmin, DATABASE);
const serviceEnv = {
  DATABASE_URL: databaseUrl,
  NODE_ENV: 'development',
  JWT_SECRET: SECRET,
  WEBHOOK_SECRET_KEY,
  RATE_LIMIT_LIMIT: '1000000',
  MIGRATIONS_RUN: 'false',
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
};
const port = benchPort(6);
let target;
let app;
let maintenance;
let feedService;
let repository;
let transactions;

const part = async (name, run) => {
  if (!PARTS.has(name)) return undefined;
  const figures = await run();
  sampleLoad();
  console.log(JSON.stringify({ [name]: figures }));
  return figures;
};

/** Feed pages from random positions of each band, per filter, over HTTP and in process: p50 and p95. */
async function feed() {
  const [{ first, last }] = (
    await db.query(
      `SELECT (SELECT purged_through FROM event_retention)::bigint AS first,
              (SELECT max(sequence) FROM events)::bigint AS last`,
    )
  ).rows;
  const low = Number(first);
  const range = Number(last) - low;
  const bands = {
    start: [low, low + range * 0.02],
    middle: [low + range * 0.49, low + range * 0.51],
    end: [low + range * 0.98, Number(last) - 200],
  };
  const filters = {
    unfiltered: () => ({}),
    customer: () => ({ customerId: uuid('9000', 1 + Math.floor(Math.random() * 1000)) }),
    rareType: () => ({ types: ['TASK_FAILED'] }),
  };
  const query = (filter) =>
    (filter.customerId ? `&customerId=${filter.customerId}` : '') +
    (filter.types ? filter.types.map((t) => `&type=${t}`).join('') : '');
  const ways = {
    http: async (at, filter) => {
      const res = await fetch(
        `${target.base}/api/v1/events?size=100&cursor=${cursorAt(at)}${query(filter)}`,
        {
          headers: adminAuth,
        },
      );
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`feed page: ${res.status}`);
    },
    service: async (at, filter) => {
      await feedService.feed(cursorAt(at), filter, 100);
    },
  };
  const pick = ([from, to]) => Math.floor(from + Math.random() * (to - from));
  // Connections, JIT and plans warmed, not measured.
  for (const way of Object.values(ways))
    for (let i = 0; i < 20; i += 1) await way(pick(bands.middle), filters.unfiltered());
  const figures = {};
  for (const [wayName, way] of Object.entries(ways)) {
    figures[wayName] = {};
    for (const [bandName, band] of Object.entries(bands)) {
      figures[wayName][bandName] = {};
      for (const [filterName, filter] of Object.entries(filters)) {
        const times = [];
        for (let i = 0; i < FEED_PAGES; i += 1) {
          const at = pick(band);
          const chosen = filter();
          const started = process.hrtime.bigint();
          await way(at, chosen);
          times.push(Number(process.hrtime.bigint() - started) / 1e6);
        }
        figures[wayName][bandName][filterName] = {
          p50Ms: percentile(times, 0.5),
          p95Ms: percentile(times, 0.95),
        };
      }
    }
  }
  return { pagesPerCase: FEED_PAGES, sequenceRange: [low, Number(last)], ...figures };
}

/** The oldest day's partition (`nth` 1: the next one) and what it holds. */
async function oldestDay(nth = 0) {
  const { rows } = await db.query(
    `SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS bytes
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'events'::regclass AND c.relname ~ '^events_p[0-9]{8}$' ORDER BY 1 OFFSET $1 LIMIT 1`,
    [nth],
  );
  const [{ count }] = (await db.query(`SELECT count(*)::int AS count FROM ${rows[0].name}`)).rows;
  return { name: rows[0].name, rows: count, bytes: Number(rows[0].bytes) };
}

/** The service's retention pass, timed: it must drop the oldest day, and that alone. */
async function dropOldestDay(expected) {
  const started = process.hrtime.bigint();
  const result = await maintenance.applyRetention();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.partitions.length !== 1 || result.partitions[0] !== expected || result.deletedRows !== 0) {
    throw new Error(`retention dropped ${JSON.stringify(result)}, expected ${expected} alone`);
  }
  return ms;
}

async function retention() {
  const day = await oldestDay();
  const before = { tableBytes: await tableSize(), deadTuples: await deadTuples() };
  const ms = await dropOldestDay(day.name);
  const after = { tableBytes: await tableSize(), deadTuples: await deadTuples() };
  const { rows } = await db.query('SELECT purged_through::text AS p FROM event_retention');
  return {
    day: { partition: day.name, rows: day.rows, mb: mb(day.bytes) },
    dropMs: Math.round(ms * 10) / 10,
    tableMb: { before: mb(before.tableBytes), after: mb(after.tableBytes) },
    deadTuplesInPartitions: { before: before.deadTuples, after: after.deadTuples },
    retentionMark: Number(rows[0].p),
    deleteInstead: await deleteInstead(),
  };
}

/**
 * Retention as it was before partitioning, on a copy of the two oldest days left (one table, the same
 * indexes): the first day's rows deleted in batches of 1,000 by the repository's statement for partitions
 * that are not one day, then the VACUUM their dead tuples need (the second day's rows keep the table's
 * pages, as the days after the deleted one do). The retention mark it raises is put back after.
 */
async function deleteInstead() {
  const [day, next] = [await oldestDay(0), await oldestDay(1)];
  const copy = 'events_bench_delete_copy';
  await db.query(`CREATE TABLE ${copy} (LIKE events INCLUDING ALL)`);
  await db.query(`INSERT INTO ${copy} SELECT * FROM ${day.name} UNION ALL SELECT * FROM ${next.name}`);
  await db.query(`VACUUM ANALYZE ${copy}`);
  const [{ p: mark }] = (await db.query('SELECT purged_through AS p FROM event_retention')).rows;
  const bytesBefore = Number(
    (await db.query(`SELECT pg_total_relation_size('${copy}')::bigint AS b`)).rows[0].b,
  );
  const [{ cutoff }] = (await db.query(`SELECT min(occurred_at) AS cutoff FROM ${next.name}`)).rows;
  let deleted = 0;
  const started = process.hrtime.bigint();
  for (;;) {
    const batch = await transactions.run((tx) => repository.purgeRowsBefore(tx, copy, cutoff, 1000));
    deleted += batch;
    if (batch < 1000) break;
  }
  const deleteMs = Number(process.hrtime.bigint() - started) / 1e6;
  const dead = await deadTuples(`c.relname = '${copy}'`);
  const vacuumStarted = process.hrtime.bigint();
  await db.query(`VACUUM ${copy}`);
  const vacuumMs = Number(process.hrtime.bigint() - vacuumStarted) / 1e6;
  const bytesAfter = Number(
    (await db.query(`SELECT pg_total_relation_size('${copy}')::bigint AS b`)).rows[0].b,
  );
  await db.query(`DROP TABLE ${copy}`);
  await db.query('UPDATE event_retention SET purged_through = $1', [mark]);
  return {
    rows: deleted,
    ofDay: day.rows,
    deleteMs: Math.round(deleteMs),
    deadTuplesLeft: dead,
    vacuumMs: Math.round(vacuumMs),
    tableMb: { before: mb(bytesBefore), afterDeleteAndVacuum: mb(bytesAfter) },
  };
}

const createBody = JSON.stringify({
  items: [
    { productId: uuid('8000', 1), quantity: 1 },
    { productId: uuid('8000', 2), quantity: 2 },
  ],
});
const createRequest = () => ({
  method: 'POST',
  path: '/api/v1/orders',
  headers: { ...customer, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
  body: createBody,
});

/** Keyed creates with and without a day dropped during the round, interleaved; the day seeded again first. */
async function creates() {
  await warmUp(target.base, createRequest);
  const runs = { without: [], with: [] };
  const drops = [];
  const oldest = firstDay;
  const name = dayPartitionName('events', oldest);
  for (let round = 0; round < ROUNDS; round += 1) {
    const exists = await db.query('SELECT to_regclass($1) AS r', [name]);
    if (exists.rows[0].r === null) {
      await seedDay(oldest);
      await db.query(`VACUUM ANALYZE ${name}`);
    }
    for (const variant of round % 2 === 0 ? ['without', 'with'] : ['with', 'without']) {
      const measuring = measureRound({
        base: target.base,
        pid: target.server.pid,
        postgres,
        amount: CREATES,
        connections: CONNECTIONS,
        request: createRequest,
      });
      let drop;
      if (variant === 'with') {
        await sleep(DROP_AFTER_MS);
        drop = await dropOldestDay(name);
      }
      const measured = await measuring;
      if (measured.non2xx > 0 || measured.errors > 0)
        throw new Error(`creates (${variant}): ${measured.non2xx} non-2xx, ${measured.errors} errors`);
      runs[variant].push(measured);
      if (drop !== undefined) drops.push(drop);
    }
  }
  return {
    requestsPerRound: CREATES,
    connections: CONNECTIONS,
    dropStartedAfterMs: DROP_AFTER_MS,
    without: {
      p95Ms: spread(
        runs.without.map((r) => r.p95Ms),
        1,
      ),
      requestsPerSecond: spread(runs.without.map((r) => r.rps)),
    },
    with: {
      p95Ms: spread(
        runs.with.map((r) => r.p95Ms),
        1,
      ),
      requestsPerSecond: spread(runs.with.map((r) => r.rps)),
    },
    p95Ratio: spread(
      runs.with.map((r, i) => r.p95Ms / runs.without[i].p95Ms),
      2,
    ),
    dropMs: spread(drops, 1),
  };
}

let summary;
try {
  const seedFigures = await prepareDatabase();
  sampleLoad();
  target = {
    base: `http://127.0.0.1:${port}`,
    server: startServer(root, ['dist/src/main.js'], {
      ...serviceEnv,
      ...deployedMemorySettings(root, 'deploy/k8s/base/api.yaml'),
      PORT: port,
    }),
  };
  // The service's own retention and feed code, in this process (its HTTP side is not listened on).
  app = await createHttpApp(
    loadConfig({ ...process.env, ...serviceEnv, EVENT_RETENTION_DAYS: String(RETENTION_DAYS) }),
  );
  await app.init();
  maintenance = app.get(EventMaintenance);
  feedService = app.get(EventFeedService);
  repository = app.get(EventsRepository);
  transactions = app.get(Transactions);
  await waitUntilUp(`${target.base}/api/v1/orders?size=1`, customer, target.server);
  const feedFigures = await part('feed', feed);
  const retentionFigures = await part('retention', retention);
  const createFigures = await part('creates', creates);
  const feedP95s = feedFigures
    ? Object.values(feedFigures.http).flatMap((band) => Object.values(band).map((f) => f.p95Ms))
    : [];
  summary = {
    machine: `${os.cpus()[0].model}, ${os.cpus().length} cores, Node ${process.version}`,
    postgres: (await postgresAdmin.query('SHOW server_version')).rows[0].server_version,
    loadAverage: { min: Math.min(...loads), max: Math.max(...loads) },
    seeded: seedFigures,
    feedPage100: feedFigures,
    retention: retentionFigures,
    createsWhileDropping: createFigures,
    goals: {
      feedPage100: 'p95 <= 20 ms at any position (over HTTP)',
      retention: "a day's drop <= 1 s, no dead tuples left",
      createsWhileDropping: 'create p95 with a drop / without <= 1.1x',
    },
    met: {
      feedPage100: feedFigures && feedP95s.every((p) => p <= 20),
      retention:
        retentionFigures &&
        retentionFigures.dropMs <= 1000 &&
        retentionFigures.deadTuplesInPartitions.after.counted === 0 &&
        retentionFigures.deadTuplesInPartitions.after.inPages === 0 &&
        (!createFigures || createFigures.dropMs.max <= 1000),
      createsWhileDropping: createFigures && createFigures.p95Ratio.median <= 1.1,
    },
  };
} finally {
  if (target) await stopServer(target.server);
  await app?.close();
  await db.end();
  if (!KEEP_DATABASE) await postgresAdmin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  else console.log(`kept database ${DATABASE}`);
  await postgresAdmin.end();
}
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
writeFileSync(path.join(root, 'bench/results/partitions.json'), JSON.stringify(summary, null, 2));
console.log(JSON.stringify(summary, null, 2));
