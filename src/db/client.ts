import fs from 'node:fs';
import type { SQL } from 'drizzle-orm';
import type { PgDatabase } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { redact } from '../config';
import { deadlineOptions } from './deadline';
import { createDatabase, isPermanent, permanentMessage, sqlState } from './first-contact';
import { preparing } from './prepared';
import * as schema from './schema/index';
import { openEmbedded } from './pglite-open';

export type Schema = typeof schema;
/** A database handle or a transaction: data functions take one of these as their first argument. */
export type Db = PgDatabase<any, Schema>;

/**
 * The rows of a raw SQL query. postgres.js answers `execute` with the array of rows, PGlite with
 * `{ rows }`; callers of hand-written SQL read them through this one place.
 */
export async function queryRows<T = Record<string, unknown>>(db: Db, query: SQL): Promise<T[]> {
  const res: any = await db.execute(query);
  return Array.isArray(res) ? res : res.rows;
}

export interface Database {
  kind: 'postgres' | 'pglite';
  db: Db;
  /** A short round trip that fails when the database is gone or cannot take writes (used by /readyz). */
  ping(timeoutMs?: number): Promise<void>;
  /** Runs fn while holding an installation-wide lock (migrations, bootstrap). */
  withLock<T>(name: string, fn: (db: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** The raw postgres.js client (PostgreSQL only): COPY. */
  pg?: postgres.Sql;
  /**
   * LISTEN on `channel` (PostgreSQL only) over a connection of its own to the primary, subscribed again after
   * every loss of it, retrying until that works. `resync` runs when the connection is lost and again once
   * the subscription is back (told which): notifications sent in between are lost, so what they would have
   * told is dropped instead. Rejects only if the first subscription fails.
   */
  listen?(
    channel: string,
    onNotify: (payload: string) => void,
    resync: (state: 'lost' | 'back') => void,
  ): Promise<void>;
}

export class DatabaseUnreachableError extends Error {}

export interface DatabaseOptions {
  databaseUrl?: string;
  dataDir: string;
  poolSize?: number;
  /** a direct connection for what needs one session throughout (DATABASE_LISTEN_URL), past a pooler */
  listenUrl?: string;
  /** false behind a transaction-mode pooler that cannot keep prepared statements */
  preparedStatements?: boolean;
  /** false behind a pooler that does not wait for every pipelined answer before reassigning the connection */
  pipelining?: boolean;
  /** how long a request may wait on PostgreSQL for each step (PORTCULLIS_DB_QUERY_TIMEOUT), see deadline.ts */
  queryTimeoutMs: number;
  /**
   * With `memory://`: a dump of a PGlite data directory (PGlite's `dumpDataDir`) to start from instead of
   * an empty cluster. The tests start each server from one migrated copy rather than migrating each anew.
   */
  pgliteSeed?: Blob;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.poolSize ?? 10, opts)
    : openPglite(opts.dataDir, opts.pgliteSeed);
}

/**
 * Which server of a multi-host URL a connection may stay on. libpq's `read-write` (and, for a host list,
 * no setting) must mean "the primary": postgres.js decides `read-write` by `default_transaction_read_only`,
 * which a hot standby reports as off, so during a failover it would settle on the still read-only
 * standby. `primary` asks `in_hot_standby` / `pg_is_in_recovery()` instead.
 */
function sessionTarget(url: string): 'primary' | undefined {
  const hosts = /^postgres(?:ql)?:\/\/(?:[^@/?#]*@)?([^/?#]*)/.exec(url)?.[1] ?? '';
  const asked = /[?&]target_session_attrs=([^&#]*)/.exec(url)?.[1];
  if (asked === 'read-write' || (asked === undefined && hosts.includes(','))) return 'primary';
  return undefined;
}

/**
 * Seconds before a closed connection tries again: doubling from 50 ms to at most one second. The driver's
 * own backoff grows to 20 s, so a pool that failed through a failover's gap would sit out the new primary
 * for that long.
 */
export function reconnectDelay(failures: number): number {
  return Math.min(0.05 * 2 ** failures, 1);
}

async function openPostgres(url: string, poolSize: number, opts: DatabaseOptions): Promise<Database> {
  const target = sessionTarget(url);
  // Session-level work (LISTEN, the start's advisory locks) goes past a transaction-mode pooler.
  const direct = opts.listenUrl ?? url;
  const directTarget = sessionTarget(direct);
  const timeoutMs = opts.queryTimeoutMs;
  const sql = postgres(url, {
    max: poolSize,
    onnotice: () => {},
    // A DATABASE_LISTEN_URL of its own means DATABASE_URL is a pooler, which refuses start-up parameters.
    ...deadlineOptions(timeoutMs, { statementTimeout: !opts.listenUrl }),
    backoff: reconnectDelay,
    ...(target ? { target_session_attrs: target } : {}),
    // Server-side prepared statements keep per-connection plans hot (drizzle's queries through
    // preparing(), see prepared.ts); a pooler that hands each transaction another server connection
    // cannot keep them.
    prepare: opts.preparedStatements !== false,
    // One query in flight per connection (max_pipeline counts the one being answered, as patched).
    ...(opts.pipelining === false ? { max_pipeline: 1 } : {}),
  });
  const db = drizzlePostgres(preparing(sql), { schema }) as unknown as Db;
  let listener: { close: () => Promise<void> } | undefined;
  return {
    kind: 'postgres',
    db,
    pg: sql,
    async ping(timeoutMs = 2000) {
      // `select 1` also answers on a hot standby; a server that cannot take writes is not ready.
      const [r] = await withTimeout(
        sql`select pg_is_in_recovery() as standby`.execute(),
        timeoutMs,
        'database ping timed out',
      );
      if (r.standby) throw new Error('the database is a read-only standby');
    },
    async withLock(name, fn) {
      // A client of its own with one connection: the advisory lock belongs to that session, and
      // everything done under the lock runs on it. Only connecting has a deadline: waiting for the lock
      // while another process migrates, and a migration itself, may take longer than any request.
      const single = postgres(direct, {
        max: 1,
        onnotice: () => {},
        connect_timeout: timeoutMs / 1000,
        ...(directTarget ? { target_session_attrs: directTarget } : {}),
      });
      const key = lockKey(name);
      try {
        await single`select pg_advisory_lock(${key})`;
        return await fn(drizzlePostgres(single, { schema }) as unknown as Db);
      } finally {
        await single`select pg_advisory_unlock(${key})`.catch(() => {});
        await single.end({ timeout: 5 });
      }
    },
    async listen(channel, onNotify, resync) {
      listener = await listenForever(direct, directTarget, timeoutMs, channel, onNotify, resync);
    },
    async close() {
      await listener?.close();
      await sql.end({ timeout: 5 });
    },
  };
}

/**
 * postgres.js re-subscribes its `listen()` once after a lost connection and gives up if that fails (as it
 * does while a failover has no primary yet), leaving the caches of this process deaf to the others. Here a
 * client of one connection issues LISTEN itself, and every close of that connection starts a retry loop.
 */
async function listenForever(
  url: string,
  target: 'primary' | undefined,
  timeoutMs: number,
  channel: string,
  onNotify: (payload: string) => void,
  resync: (state: 'lost' | 'back') => void,
): Promise<{ close: () => Promise<void> }> {
  let closing = false;
  let retrying = false;
  // `onnotify` is how postgres.js's own listen() hears notifications; its types leave it out.
  const options: postgres.Options<{}> & { onnotify: (channel: string, payload: string) => void } = {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    fetch_types: false,
    onnotice: () => {},
    // The subscription's own statement is bounded like a request's; the session then idles, owing nothing.
    ...deadlineOptions(timeoutMs, { statementTimeout: false }),
    backoff: reconnectDelay,
    ...(target ? { target_session_attrs: target } : {}),
    onnotify: (c, payload) => {
      if (c === channel) onNotify(payload);
    },
    onclose: () => {
      if (closing) return;
      resync('lost');
      void subscribeAgain();
    },
  };
  const sql = postgres(url, options);
  const subscribe = () => sql.unsafe(`listen "${channel.replace(/"/g, '""')}"`);
  async function subscribeAgain() {
    if (retrying) return;
    retrying = true;
    try {
      for (let failures = 0; !closing; failures++) {
        try {
          await subscribe();
          resync('back');
          return;
        } catch {
          await new Promise((r) => setTimeout(r, reconnectDelay(failures) * 1000));
        }
      }
    } finally {
      retrying = false;
    }
  }
  await subscribe();
  return {
    async close() {
      closing = true;
      await sql.end({ timeout: 5 });
    },
  };
}

async function openPglite(dataDir: string, seed: Blob | undefined): Promise<Database> {
  if (dataDir !== 'memory://') fs.mkdirSync(dataDir, { recursive: true });
  // Loaded only here: a server on PostgreSQL does not carry the embedded database's code.
  const [client, { drizzle: drizzlePglite }] = await Promise.all([
    openEmbedded(dataDir, seed),
    import('drizzle-orm/pglite'),
  ]);
  await client.waitReady;
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    async ping() {
      await client.query('select 1');
    },
    // PGlite is one connection in one process: there is nobody to race with.
    async withLock(_name, fn) {
      return fn(db);
    },
    async close() {
      if (!client.closed) await client.close();
    },
  };
}

function lockKey(name: string): number {
  let h = 0;
  for (const ch of `portcullis:${name}`) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]);
}

/**
 * Opens the database, retrying a PostgreSQL that does not answer yet until the deadline; then fails
 * with one line that names the server and the reason. What no retry cures fails at once (see
 * first-contact.ts): a database that does not exist is created first when `createMissing` and its role may.
 */
export async function connectWithRetry(
  opts: DatabaseOptions & { timeoutMs: number; createMissing?: boolean },
): Promise<Database> {
  const deadline = Date.now() + opts.timeoutMs;
  let delay = 250;
  let created = false;
  for (;;) {
    let database: Database | undefined;
    try {
      database = await openDatabase(opts);
      await database.ping(5000);
      return database;
    } catch (err) {
      await database?.close().catch(() => {});
      if (opts.databaseUrl && isPermanent(err)) {
        // The database itself is made on the server, past a pooler in DATABASE_URL.
        const direct = opts.listenUrl ?? opts.databaseUrl;
        if (sqlState(err) !== '3D000' || !opts.createMissing || created) {
          throw new DatabaseUnreachableError(permanentMessage(err, direct));
        }
        try {
          await createDatabase(direct, Math.max(1000, Math.min(opts.timeoutMs, 10_000)));
        } catch (refused) {
          throw new DatabaseUnreachableError((refused as Error).message);
        }
        created = true;
        continue;
      }
      if (!opts.databaseUrl || Date.now() + delay > deadline) {
        const where = opts.databaseUrl ? `PostgreSQL at ${describeUrl(opts.databaseUrl)}` : `PGlite in ${opts.dataDir}`;
        const seconds = Math.round(opts.timeoutMs / 1000);
        throw new DatabaseUnreachableError(
          `cannot reach ${where}: ${reason(err)}${opts.databaseUrl ? ` (gave up after ${seconds}s)` : ''}`,
        );
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 2000);
    }
  }
}

function describeUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return redact(raw);
  }
}

function reason(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e?.code && e.message && !e.message.includes(e.code)) return `${e.code} ${e.message}`;
  return e?.message ?? String(err);
}
