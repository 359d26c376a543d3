import { Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Cluster, Redis } from 'ioredis';
import { read } from './sql-statement';
import { StatementRunner, type StatementTarget } from './statement-runner';

/**
 * Where each caller's last write is remembered: the primary's WAL position right after it committed, for as
 * long as a replica in use could still miss it.
 */
export interface WritePositions {
  /** Keeps `lsn` for `caller` unless a later position is kept already. */
  remember(caller: string, lsn: bigint): Promise<void>;
  /** The caller's last remembered position; 0 when none. */
  recall(caller: string): Promise<bigint>;
}

/** Positions as fixed-width hex, so Redis compares them as strings. */
const hex = (lsn: bigint) => lsn.toString(16).padStart(16, '0');

/** Keeps the greater of the kept and the given position, for `ttl` milliseconds more. */
const REMEMBER_SCRIPT = `
local kept = redis.call('GET', KEYS[1])
if (not kept) or kept < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end`;

/** In Redis (one server or a cluster: one key a call): every pod sees every caller's writes. */
export class RedisWritePositions implements WritePositions {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {}

  async remember(caller: string, lsn: bigint): Promise<void> {
    await this.redis.eval(REMEMBER_SCRIPT, 1, this.key(caller), hex(lsn), String(this.ttlMs));
  }

  async recall(caller: string): Promise<bigint> {
    const kept = await this.redis.get(this.key(caller));
    return kept === null ? 0n : BigInt(`0x${kept}`);
  }

  private key(caller: string): string {
    return `${this.prefix}:read-after:${caller}`;
  }
}

/** In this process's memory (no REDIS_URL: a single process). Bounded: the oldest entries go first. */
export class MemoryWritePositions implements WritePositions {
  private readonly kept = new Map<string, { lsn: bigint; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly limit = 100_000,
  ) {}

  remember(caller: string, lsn: bigint): Promise<void> {
    const before = this.kept.get(caller);
    this.kept.delete(caller);
    this.kept.set(caller, {
      lsn: before && before.lsn > lsn ? before.lsn : lsn,
      until: Date.now() + this.ttlMs,
    });
    if (this.kept.size > this.limit) this.kept.delete(this.kept.keys().next().value as string);
    return Promise.resolve();
  }

  recall(caller: string): Promise<bigint> {
    const entry = this.kept.get(caller);
    if (!entry) return Promise.resolve(0n);
    if (entry.until < Date.now()) {
      this.kept.delete(caller);
      return Promise.resolve(0n);
    }
    return Promise.resolve(entry.lsn);
  }
}

/** A request's or a job's reads: whose they are, and the newest write they must see. */
interface ReadSession {
  caller?: () => string | undefined;
  /** The WAL position after this session's own last commit. */
  after: bigint;
  recalled?: Promise<bigint>;
}

const COMMITTED_POSITION = read("SELECT (pg_current_wal_lsn() - '0/0')::text AS lsn");

/** A position no replica reaches: the session reads on the primary. */
const NEVER = 1n << 64n;

/**
 * Read-your-writes across replicas: a caller's writes are visible to that caller's next reads, on whichever
 * pod they land. After a commit in a session (a request, a task's run), the primary's WAL position is kept for
 * the session and, keyed by the caller, in `WritePositions` (Redis when configured); a replica serves the
 * session's reads only once it has replayed past the newer of the two. Without replicas it does nothing.
 */
export class ReadYourWrites {
  private readonly sessions = new AsyncLocalStorage<ReadSession>();
  private readonly logger = new Logger('Replicas');

  constructor(
    private readonly positions: WritePositions | undefined,
    private readonly runner: StatementRunner,
  ) {}

  get enabled(): boolean {
    return this.positions !== undefined;
  }

  /** Runs `body` (and all it starts) as one session; `caller` (read when needed) names whose reads they are. */
  session<T>(caller: (() => string | undefined) | undefined, body: () => T): T {
    if (!this.enabled) return body();
    return this.sessions.run({ caller, after: 0n }, body);
  }

  /** After a commit on `connection` (the primary): the session's and its caller's later reads must see it. */
  async committed(connection: StatementTarget): Promise<void> {
    const session = this.sessions.getStore();
    if (!this.positions || !session) return;
    let lsn: bigint;
    try {
      const [row] = (await this.runner.run(connection, COMMITTED_POSITION, [])).rows as Array<{
        lsn: string;
      }>;
      lsn = BigInt(row.lsn);
    } catch (error: unknown) {
      // The change is committed; without its position this session reads on the primary.
      session.after = NEVER;
      this.logger.warn({ msg: 'could not read the WAL position of a commit', reason: reasonOf(error) });
      return;
    }
    if (lsn > session.after) session.after = lsn;
    const caller = session.caller?.();
    if (caller === undefined) return;
    session.recalled = undefined;
    try {
      await this.positions.remember(caller, lsn);
    } catch (error: unknown) {
      this.logger.warn({
        msg: "could not remember a caller's write for the read replicas",
        reason: reasonOf(error),
      });
    }
  }

  /** The WAL position a replica must have replayed to serve the current reader: 0 when nothing is owed. */
  async required(): Promise<bigint> {
    const session = this.sessions.getStore();
    if (!this.positions || !session) return 0n;
    const caller = session.caller?.();
    if (caller === undefined) return session.after;
    session.recalled ??= this.positions.recall(caller).catch((error: unknown) => {
      // Unknown: the caller's reads stay on the primary.
      this.logger.warn({ msg: "could not recall a caller's last write", reason: reasonOf(error) });
      return NEVER;
    });
    const recalled = await session.recalled;
    return recalled > session.after ? recalled : session.after;
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
