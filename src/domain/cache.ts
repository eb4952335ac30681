import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { type PerServer, perServer, type Runtime } from '../deps';
import type { UnitOfWork } from './execute';

/**
 * Caches of read-mostly rows (clients, machine users, keys, settings), one set per server (its Runtime),
 * that stay correct across replicas: a command that changes such a row calls `invalidateAfterCommit`,
 * which evicts the entry here and, on PostgreSQL, sends a NOTIFY in the same transaction (delivered only
 * on commit) so every other process evicts it too. If the listening connection drops, notifications may
 * have been missed, so every cache is cleared when it reconnects. `maxAgeMs` bounds staleness in any case.
 */
export interface Cache<V> {
  get(key: string, load: () => Promise<V>): Promise<V>;
  evict(key: string): void;
  clear(): void;
}

const CHANNEL = 'portcullis_cache';

const replicaScope = new AsyncLocalStorage<true>();

/**
 * Runs `fn` as a read from a read replica: caches answer from what they hold but keep nothing loaded
 * meanwhile. A replica may be behind, and an entry loaded there after a change had evicted it would serve
 * the old value to everyone (the login and the OIDC layer included) until its maximum age.
 */
export function whileReadingReplica<T>(fn: () => Promise<T>): Promise<T> {
  return replicaScope.run(true, fn);
}

/** What a server's invalidations reach: its caches by name, and whether it hears (and so tells) other processes. */
interface Invalidations {
  caches: Map<string, { evict(key: string): void; clear(): void }>;
  listening: boolean;
}
const invalidations = perServer((): Invalidations => ({ caches: new Map(), listening: false }));

/**
 * Declares a cache: each server that uses it gets its own (`runtime.get(cache)`), which its invalidations
 * under `name` evict. A server that never used it holds nothing to evict.
 */
export function defineCache<V>(name: string, opts: { max?: number; maxAgeMs?: number } = {}): PerServer<Cache<V>> {
  return perServer((runtime) => {
    const cache = createCache<V>(opts);
    runtime.get(invalidations).caches.set(name, cache as Cache<unknown>);
    return cache;
  });
}

function createCache<V>(opts: { max?: number; maxAgeMs?: number }): Cache<V> {
  const max = opts.max ?? 10_000;
  const maxAge = opts.maxAgeMs ?? 60_000;
  const entries = new Map<string, { at: number; value: Promise<V> }>();
  const cache: Cache<V> = {
    get(key, load) {
      const hit = entries.get(key);
      if (hit && Date.now() - hit.at < maxAge) return hit.value;
      if (replicaScope.getStore()) return load();
      if (entries.size >= max) entries.delete(entries.keys().next().value!);
      const value = load();
      entries.set(key, { at: Date.now(), value });
      value.catch(() => entries.delete(key));
      return value;
    },
    evict(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
  };
  return cache;
}

/**
 * For caches that are not keyed rows: `handler` runs on every invalidation of `name` that reaches this
 * server, from here or elsewhere.
 */
export function onInvalidation(runtime: Runtime, name: string, handler: () => void): void {
  runtime.get(invalidations).caches.set(name, { evict: handler, clear: handler });
}

/** Evicts `name:key` in this server now and in every process once the command commits. */
export async function invalidateAfterCommit(work: UnitOfWork, name: string, key: string): Promise<void> {
  work.ctx.runtime.get(invalidations).caches.get(name)?.evict(key);
  await announceAfterCommit(work, name, key);
}

/** Tells every process that listens (this one included) `name:key` once the command commits. */
export async function announceAfterCommit(work: UnitOfWork, name: string, key: string): Promise<void> {
  // pg_notify inside the transaction: PostgreSQL delivers it only if the transaction commits.
  // PGlite has no other process to tell; a local eviction is all it needs. The separator is
  // U+001F because PostgreSQL text (and so a NOTIFY payload) cannot hold NUL.
  if (work.ctx.runtime.get(invalidations).listening)
    await work.tx.execute(sql`select pg_notify(${CHANNEL}, ${`${name}\u001f${key}`})`);
}

/**
 * Hears the announcements of one name for one server, besides the caches (the read router hears who
 * wrote): every key, and when the listening connection is lost (announcements may be missed from then
 * on) and subscribed again (none missed from then on; also once the first subscription holds).
 */
export interface AnnouncementReceiver {
  heard(key: string): void;
  lost(): void;
  back(): void;
}

/** Subscribes this server to invalidations from the other processes (PostgreSQL only). */
export async function listenForInvalidations(
  runtime: Runtime,
  database: Database,
  receivers: ReadonlyMap<string, AnnouncementReceiver> = new Map(),
): Promise<void> {
  if (!database.listen) return;
  const own = runtime.get(invalidations);
  await database.listen(
    CHANNEL,
    (payload) => {
      const [name, key] = payload.split('\u001f');
      const receiver = receivers.get(name);
      if (receiver) receiver.heard(key);
      else own.caches.get(name)?.evict(key);
    },
    (state) => {
      for (const c of own.caches.values()) c.clear();
      for (const r of receivers.values()) state === 'lost' ? r.lost() : r.back();
    },
  );
  own.listening = true;
  for (const r of receivers.values()) r.back();
}
