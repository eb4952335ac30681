import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { isDatabaseDown } from '../domain/errors';
import { type Db, queryRows, reconnectDelay } from './client';
import { deadlineOptions } from './deadline';
import { preparing } from './prepared';
import { sqlErrorIn } from './sql-error';
import * as schema from './schema/index';

/** A position in PostgreSQL's write-ahead log, `X/Y` (two hex numbers of up to 32 bits), as one number. */
export function parseLsn(text: string): bigint {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!m) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/** A server that is not in recovery takes writes itself: it has everything. */
const EVERYTHING = 1n << 64n;
/** Callers remembered as recent writers, at most; past it, everyone reads from the primary for a while. */
const MAX_MARKS = 100_000;
/** How long a marked caller's read waits for a fresh look at the replica before it reads the primary. */
const FRESH_CHECK_MS = 1000;

export interface ReadRouterOptions {
  primary: Db;
  /** DATABASE_READ_URL: one or several hosts */
  replicaUrl: string;
  poolSize: number;
  preparedStatements: boolean;
  /** false behind a pooler that hands the connection on at the first answer (PORTCULLIS_DB_PIPELINING) */
  pipelining: boolean;
  /** PORTCULLIS_DB_QUERY_TIMEOUT: a silent or slow replica fails the read (and it runs on the primary) */
  queryTimeoutMs: number;
  /** send `statement_timeout` at connect (not to a pooler, which refuses start-up parameters) */
  statementTimeout: boolean;
  maxLagMs: number;
  /** after every check of the replica: how far behind it may be (seconds), or null when it cannot be told */
  onCheck?: (lagSeconds: number | null) => void;
  /** a read the replica failed runs again on the primary */
  onFallback?: () => void;
}

interface Mark {
  /** when the write was known here (the router's own clock), to accept only positions fetched after it */
  seq: number;
  at: number;
  /** the primary's position once fetched after the write: the replica must have replayed this far */
  needs?: bigint;
}

/**
 * Chooses the database of a read that tolerates a little lag: the replicas of DATABASE_READ_URL while they
 * are at most `maxLagMs` behind, the primary otherwise, and the primary for a caller whose own write the
 * replicas have not replayed yet (read-your-writes by WAL position).
 *
 * How far behind: every poll samples the primary's `pg_current_wal_lsn()` (with the time the query was
 * sent, so everything committed before that time lies at or before it), then each replica host's
 * `pg_last_wal_replay_lsn()`. The replicas hold every commit older than the newest sample they have all
 * replayed; they serve while that sample is at most `maxLagMs` old. A failed poll, or a replica query that
 * failed as a database outage (`failed()`), stops them until a poll succeeds.
 *
 * Writers: `mark(caller)` when a caller's write committed (here, or heard from another process). The
 * caller's next read fetches the primary's WAL position (a fetch started after the mark, so at or after
 * the commit; concurrent reads share one fetch) and reads the replicas only once they replayed that far.
 * A mark older than `maxLagMs` plus a poll is dropped: replicas fit to serve have replayed it.
 */
export class ReadRouter {
  readonly replica: Db;
  private readonly pool: postgres.Sql;
  /** one client per host: the pool's connections may sit on any host of the list */
  private readonly probes: postgres.Sql[];
  private readonly pollMs: number;
  private readonly markTtl: number;
  private samples: { at: number; lsn: bigint }[] = [];
  /** the least position every answering replica host had replayed at the last poll; undefined: unusable */
  private replayed: bigint | undefined;
  private readonly marks = new Map<string, Mark>();
  private clock = 0;
  private fetching: { seq: number; lsn: Promise<bigint> } | undefined;
  private fetched: { seq: number; lsn: bigint } | undefined;
  /** until then every read goes to the primary: marks may have been missed (Infinity: deaf to other processes) */
  private everyoneUntil = Number.POSITIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** counts failures, so that a poll that started before one cannot undo it */
  private failures = 0;

  constructor(private readonly opts: ReadRouterOptions) {
    const common = {
      onnotice: () => {},
      backoff: reconnectDelay,
      ...deadlineOptions(opts.queryTimeoutMs, { statementTimeout: opts.statementTimeout }),
    };
    this.pool = postgres(opts.replicaUrl, {
      ...common,
      max: opts.poolSize,
      prepare: opts.preparedStatements,
      ...(opts.pipelining ? {} : { max_pipeline: 1 }),
    });
    this.replica = drizzle(preparing(this.pool), { schema }) as unknown as Db;
    this.probes = hostUrls(opts.replicaUrl).map((url) =>
      postgres(url, { ...common, max: 1, prepare: false, fetch_types: false, target_session_attrs: undefined }),
    );
    // A limit of one second would otherwise be missed by any replica between two polls a second apart.
    this.pollMs = Math.min(1000, opts.maxLagMs / 4);
    this.markTtl = opts.maxLagMs + this.pollMs;
    void this.poll();
  }

  /** The database for a read of `caller` (a user id): a replica, or the primary when the rules above say so. */
  async dbFor(caller?: string): Promise<Db> {
    const now = performance.now();
    if (now < this.everyoneUntil || !this.current(now)) return this.opts.primary;
    const mark = caller === undefined ? undefined : this.marks.get(caller);
    if (!mark) return this.replica;
    if (now - mark.at > this.markTtl) {
      this.marks.delete(caller!);
      return this.replica;
    }
    try {
      mark.needs ??= await this.primaryPositionAfter(mark.seq);
      if (this.replayed !== undefined && this.replayed >= mark.needs) return this.replica;
      const fresh = await withTimeout(this.replicaPosition(), FRESH_CHECK_MS);
      return fresh >= mark.needs ? this.replica : this.opts.primary;
    } catch {
      return this.opts.primary;
    }
  }

  /**
   * Runs a read of `caller` where dbFor says. A read the replica fails as an outage (connection lost,
   * shutting down, read-only) or cancels for a conflict with replay (40001) runs once more on the primary;
   * after an outage the replicas serve nothing until they answer a poll.
   */
  async read<T>(caller: string | undefined, run: (db: Db) => Promise<T>): Promise<T> {
    const db = await this.dbFor(caller);
    if (db === this.opts.primary) return run(db);
    try {
      return await run(db);
    } catch (err) {
      const down = isDatabaseDown(err);
      if (!down && !isRecoveryConflict(err)) throw err;
      if (down) this.failed();
      this.opts.onFallback?.();
      return run(this.opts.primary);
    }
  }

  /** `caller` committed a write just now. */
  mark(caller: string): void {
    const now = performance.now();
    this.marks.delete(caller);
    for (const [key, m] of this.marks) {
      if (now - m.at <= this.markTtl && this.marks.size < MAX_MARKS) break;
      // Dropped while still young: nobody can be told apart from a recent writer until it would have expired.
      if (now - m.at <= this.markTtl) this.readEverythingFromPrimaryUntil(m.at + this.markTtl);
      this.marks.delete(key);
    }
    this.marks.set(caller, { seq: ++this.clock, at: now });
  }

  /** The announcements of writes from other processes may be missed from now on. */
  deaf(): void {
    this.everyoneUntil = Number.POSITIVE_INFINITY;
  }

  /** Hearing every announcement again: a write announced while deaf is replayed by replicas fit to serve by then. */
  hearing(): void {
    if (this.everyoneUntil === Number.POSITIVE_INFINITY) this.everyoneUntil = 0;
    this.readEverythingFromPrimaryUntil(performance.now() + this.markTtl);
  }

  /** A read on the replicas failed as an outage: the primary serves until a poll succeeds. */
  failed(): void {
    this.failures++;
    this.replayed = undefined;
    this.opts.onCheck?.(null);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all([this.pool, ...this.probes].map((c) => c.end({ timeout: 5 })));
  }

  private readEverythingFromPrimaryUntil(until: number): void {
    this.everyoneUntil = Math.max(this.everyoneUntil, until);
  }

  /** The replicas have replayed a primary sample at most maxLag old. */
  private current(now: number): boolean {
    const lag = this.lagMs(now);
    return lag !== undefined && lag <= this.opts.maxLagMs;
  }

  /** Age of the newest primary sample the replicas have replayed; undefined when unknown. */
  private lagMs(now: number): number | undefined {
    if (this.replayed === undefined) return undefined;
    for (let i = this.samples.length - 1; i >= 0; i--)
      if (this.samples[i].lsn <= this.replayed) return now - this.samples[i].at;
    return undefined;
  }

  private async poll(): Promise<void> {
    const at = performance.now();
    const failures = this.failures;
    try {
      const lsn = await position(this.opts.primary, sql`select pg_current_wal_lsn()::text as lsn`);
      const replayed = await this.replicaPosition();
      this.samples.push({ at, lsn });
      const keep = performance.now() - this.opts.maxLagMs - 2 * this.pollMs;
      while (this.samples.length > 1 && this.samples[1].at < keep) this.samples.shift();
      if (failures === this.failures) this.replayed = replayed;
      const lag = this.lagMs(performance.now());
      this.opts.onCheck?.(lag === undefined ? null : lag / 1000);
    } catch {
      this.failed();
    }
    if (!this.closed) this.timer = setTimeout(() => void this.poll(), this.pollMs).unref();
  }

  /** How far every replica host that answers has replayed (a host that does not answer serves no read either). */
  private async replicaPosition(): Promise<bigint> {
    const answers = await Promise.allSettled(
      this.probes.map(async (probe) => {
        const [r] = await probe`select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as lsn`;
        return r.standby ? (r.lsn ? parseLsn(r.lsn) : 0n) : EVERYTHING;
      }),
    );
    const known = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
    if (!known.length) throw new Error('no read replica answers');
    // BigInts: Math.min does not take them
    let least = known[0];
    for (const k of known) if (k < least) least = k;
    return least;
  }

  /**
   * The primary's WAL position, fetched after the mark `seq`: one fetch at a time, shared by every read
   * that it serves. The insert position is at or after every commit record already written, even with
   * `synchronous_commit = off`, where a commit may return before its record is.
   */
  private async primaryPositionAfter(seq: number): Promise<bigint> {
    for (;;) {
      if (this.fetched && this.fetched.seq > seq) return this.fetched.lsn;
      const running = this.fetching;
      if (running) {
        if (running.seq > seq) return running.lsn;
        await running.lsn.catch(() => {});
        continue;
      }
      const started = ++this.clock;
      const done = () => {
        if (this.fetching?.seq === started) this.fetching = undefined;
      };
      const lsn = position(this.opts.primary, sql`select pg_current_wal_insert_lsn()::text as lsn`).then(
        (value) => {
          done();
          if (!this.fetched || this.fetched.seq < started) this.fetched = { seq: started, lsn: value };
          return value;
        },
        (err) => {
          done();
          throw err;
        },
      );
      this.fetching = { seq: started, lsn };
      return lsn;
    }
  }
}

/** A hot standby cancels a query whose rows replay removes (SQLSTATE 40001, "conflict with recovery"). */
function isRecoveryConflict(err: unknown): boolean {
  return sqlErrorIn(err, (code) => code === '40001') !== undefined;
}

async function position(db: Db, query: ReturnType<typeof sql>): Promise<bigint> {
  const [row] = await queryRows<{ lsn: string }>(db, query);
  return parseLsn(row.lsn);
}

/** One URL per host of a libpq multi-host URL (`postgres://u@h1:5432,h2:5432/db?…`). */
export function hostUrls(url: string): string[] {
  const m = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/.exec(url);
  if (!m || !m[3].includes(',')) return [url];
  return m[3].split(',').map((host) => `${m[1]}${m[2] ?? ''}${host}${m[4]}`);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer in time')), ms);
    }),
  ]);
}
