import type { Logger } from 'pino';
import type { Config } from './config';
import type { Database, Db } from './db/client';
import type { ReadRouter } from './db/read-router';

/** What the transports need from the composition root. Passed down explicitly, never global. */
export interface Deps {
  config: Config;
  database: Database;
  /** chooses between the primary and DATABASE_READ_URL for the reads that tolerate lag; absent without it */
  reads?: ReadRouter;
  instanceId: string;
  log: Logger;
  /** this server's caches, queues and registrations; every Ctx made from these deps carries it too */
  runtime: Runtime;
}

/**
 * Something a server keeps in memory for as long as it runs: a cache, a batching queue, a registration.
 * A module declares it once with `perServer`; each server's Runtime makes its own on first use.
 */
export interface PerServer<T> {
  readonly create: (runtime: Runtime) => T;
}

export function perServer<T>(create: (runtime: Runtime) => T): PerServer<T> {
  return { create };
}

/**
 * One server's memory. start() (src/main.ts) makes one per server and passes it down in Deps and in every
 * Ctx, instead of maps at module level keyed by the database: two servers in one process (the tests start
 * several) share no cache, queue or registration by accident, and stopping a server drops all of it. What
 * stays at module level only remembers values that never change (see the comments where it is kept).
 */
export class Runtime {
  readonly #held = new Map<PerServer<unknown>, unknown>();

  /** This server's own `state`, made the first time it is asked for. */
  get<T>(state: PerServer<T>): T {
    if (!this.#held.has(state)) this.#held.set(state, state.create(this));
    return this.#held.get(state) as T;
  }
}

/** A transport's view of where cached reads of this server look: its primary database and its runtime. */
export function sourceOf(deps: Deps): { db: Db; runtime: Runtime } {
  return { db: deps.database.db, runtime: deps.runtime };
}
