import { Logger } from '@nestjs/common';
import type { Pool } from 'pg';

/** `up`: serves replica reads; `lagging`: further behind than the bound; `down`: unreachable or not a standby. */
export type ReplicaStatus = 'up' | 'lagging' | 'down';

/** What `/ready` and the metrics say of one replica. */
export interface ReplicaState {
  /** Host, port and database of its URL (never its credentials). */
  name: string;
  status: ReplicaStatus;
  /** How far behind the primary it was at the last sample; null when it could not be read. */
  lagMs: number | null;
  /** Why it is not `up`. */
  reason?: string;
  /** Replica reads it served, and those that failed on it and were answered by the primary. */
  reads: number;
  fallbacks: number;
}

/** A replica's pool, as `Sql.rows` runs a statement on it. */
export interface Replica {
  readonly name: string;
  readonly pool: Pool;
}

/** The WAL position as a number of bytes (`pg_lsn - '0/0'`), which text carries exactly. */
const PRIMARY_POSITION = "SELECT (pg_current_wal_lsn() - '0/0')::text AS lsn";
const REPLAYED_POSITION = "SELECT (pg_last_wal_replay_lsn() - '0/0')::text AS lsn";

/**
 * The primary's WAL positions over the last while, each with when it was sampled: what turns a replica's
 * replayed position into how far behind it is in time. A replica that has replayed the newest position is not
 * behind, however long ago the primary last wrote; one that has replayed only an older sample's position
 * holds everything the primary had then, and nothing newer for sure: it is behind by that sample's age.
 */
export class WalHistory {
  private readonly samples: Array<{ at: number; lsn: bigint }> = [];

  constructor(private readonly keepMs: number) {}

  add(at: number, lsn: bigint): void {
    this.samples.push({ at, lsn });
    while (this.samples.length > 1 && this.samples[0].at < at - this.keepMs) this.samples.shift();
  }

  /** How far behind, at the newest sample, a server is that has replayed up to `replayed`. */
  lagMs(replayed: bigint): number {
    const newest = this.samples.at(-1);
    if (!newest) return Number.POSITIVE_INFINITY;
    for (let i = this.samples.length - 1; i >= 0; i--) {
      if (this.samples[i].lsn <= replayed) return newest.at - this.samples[i].at;
    }
    // Behind everything kept: further behind than anyone asks about.
    return Number.POSITIVE_INFINITY;
  }
}

/** Errors that say the server or the connection is gone (SQLSTATE classes 08 and 57P, or no SQLSTATE). */
function lostServer(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code.startsWith('57P')
  );
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class ReplicaServer implements Replica {
  status: ReplicaStatus = 'down';
  reason?: string = 'not sampled yet';
  lagMs: number | null = null;
  replayed = 0n;
  reads = 0;
  fallbacks = 0;
  sampling = false;

  constructor(
    readonly name: string,
    readonly pool: Pool,
  ) {}
}

/**
 * The read replicas (`DATABASE_REPLICA_URLS`): one pg pool per replica, with the primary's session settings
 * asked for at connect; how far behind each is, sampled periodically (not per request) by comparing its
 * replayed WAL position with the primary's; which one serves the next replica read. A replica further behind
 * than `DB_REPLICA_MAX_LAG_MS`, unreachable, or on which a read just failed for want of the server, is
 * skipped until a sample finds it caught up again (docs/decisions/0147-read-replicas-routed-by-the-executor.md).
 */
export class ReplicaSet {
  private readonly servers: ReplicaServer[];
  private readonly history: WalHistory;
  private readonly logger = new Logger('Replicas');
  private timer?: NodeJS.Timeout;
  private sampling?: Promise<void>;
  private next = 0;
  /** Replica reads the primary served because no replica could (or one failed). */
  primaryReads = 0;
  readonly sampleEveryMs: number;

  constructor(
    urls: readonly string[],
    makePool: (url: string) => Pool,
    private readonly primary: Pool,
    readonly maxLagMs: number,
  ) {
    this.servers = urls.map((url) => {
      const pool = makePool(url);
      // An idle connection that the server closes (a restart) is dropped by the pool; nothing else to do.
      pool.on('error', () => undefined);
      return new ReplicaServer(nameOf(url), pool);
    });
    // A few samples within the bound, at most one a second.
    this.sampleEveryMs = Math.min(1_000, Math.max(50, Math.floor(maxLagMs / 5)));
    this.history = new WalHistory(2 * maxLagMs + 4 * this.sampleEveryMs);
  }

  get enabled(): boolean {
    return this.servers.length > 0;
  }

  /** Samples now, then every `sampleEveryMs` until `close`. */
  async start(): Promise<void> {
    if (!this.enabled) return;
    await this.sample();
    this.timer = setInterval(() => void this.sample(), this.sampleEveryMs);
    this.timer.unref();
  }

  /**
   * The replica for the next replica read, round robin among those up that have replayed `after` (the WAL
   * position of the reader's own last write; 0 when it has none); undefined: the primary serves it.
   */
  pick(after: bigint): Replica | undefined {
    for (let i = 0; i < this.servers.length; i++) {
      const server = this.servers[(this.next + i) % this.servers.length];
      if (server.status === 'up' && server.replayed >= after) {
        this.next = (this.next + i + 1) % this.servers.length;
        return server;
      }
    }
    return undefined;
  }

  served(replica: Replica): void {
    (replica as ReplicaServer).reads++;
  }

  servedByPrimary(): void {
    this.primaryReads++;
  }

  /** A read failed on `replica` (the primary answers it): a lost server is skipped until a sample finds it. */
  failed(replica: Replica, error: unknown): void {
    const server = replica as ReplicaServer;
    server.fallbacks++;
    if (lostServer(error) && server.status === 'up') this.mark(server, 'down', reasonOf(error), null);
  }

  state(): ReplicaState[] {
    return this.servers.map(({ name, status, lagMs, reason, reads, fallbacks }) => ({
      name,
      status,
      lagMs: lagMs === null || Number.isFinite(lagMs) ? lagMs : null,
      ...(reason === undefined ? {} : { reason }),
      reads,
      fallbacks,
    }));
  }

  /** One round: the primary's position, then each replica's (a replica read after the primary is never late). */
  sample(): Promise<void> {
    this.sampling ??= this.sampleOnce().finally(() => (this.sampling = undefined));
    return this.sampling;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sampling;
    await Promise.all(this.servers.map((server) => server.pool.end().catch(() => undefined)));
  }

  private async sampleOnce(): Promise<void> {
    let primaryLsn: bigint;
    try {
      primaryLsn = BigInt((await this.primary.query<{ lsn: string }>(PRIMARY_POSITION)).rows[0].lsn);
    } catch {
      // The primary's own health is /ready's; the replicas keep their state until it answers again.
      return;
    }
    this.history.add(Date.now(), primaryLsn);
    await Promise.all(this.servers.map((server) => this.sampleReplica(server)));
  }

  private async sampleReplica(server: ReplicaServer): Promise<void> {
    let lsn: string | null;
    try {
      lsn = (
        await withTimeout(server.pool.query<{ lsn: string | null }>(REPLAYED_POSITION), this.answerWithinMs)
      ).rows[0].lsn;
    } catch (error: unknown) {
      this.mark(server, 'down', reasonOf(error), null);
      return;
    }
    if (lsn === null) {
      this.mark(server, 'down', 'not a standby (not in recovery)', null);
      return;
    }
    server.replayed = BigInt(lsn);
    const lag = this.history.lagMs(server.replayed);
    if (lag <= this.maxLagMs) this.mark(server, 'up', undefined, lag);
    else this.mark(server, 'lagging', `further behind than ${this.maxLagMs} ms`, lag);
  }

  /** A replica that does not answer a sample within this is as good as unreachable. */
  private get answerWithinMs(): number {
    return Math.max(1_000, this.sampleEveryMs);
  }

  private mark(
    server: ReplicaServer,
    status: ReplicaStatus,
    reason: string | undefined,
    lagMs: number | null,
  ): void {
    const was = server.status;
    server.status = status;
    server.reason = reason;
    server.lagMs = lagMs;
    if (was === status) return;
    const entry = { msg: `read replica ${status}`, replica: server.name, ...(reason ? { reason } : {}) };
    if (status === 'up') this.logger.log(entry);
    else this.logger.warn(entry);
  }
}

/** `host:port/database` of a PostgreSQL URL: a replica's name in logs, `/ready` and metrics. */
export function nameOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
