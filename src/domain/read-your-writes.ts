import type { Db } from '../db/client';
import type { ReadRouter } from '../db/read-router';
import { type AnnouncementReceiver, announceAfterCommit } from './cache';
import type { CommitObserver } from './execute';

/** The name under which a write's caller is announced on the cache channel. */
const WRITES = 'writes';

/** The read router of each server by its primary database (a test process starts several servers). */
const routers = new WeakMap<Db, ReadRouter>();

/**
 * From now on, `router` learns of every write committed through `primary` in this process; the receivers
 * returned, given to listenForInvalidations, tell it of the writes of other processes and of the times it
 * may have missed some.
 */
export function watchWrites(primary: Db, router: ReadRouter): ReadonlyMap<string, AnnouncementReceiver> {
  routers.set(primary, router);
  const receiver: AnnouncementReceiver = {
    heard: (caller) => router.mark(caller),
    lost: () => router.deaf(),
    back: () => router.hearing(),
  };
  return new Map([[WRITES, receiver]]);
}

/**
 * Read-your-writes across processes: the command's caller is announced in its transaction (PostgreSQL
 * delivers the NOTIFY when it commits) and marked here once the commit is through. Inert for a server
 * without read replicas.
 */
export const writerMarksObserver: CommitObserver = {
  async beforeCommit(work) {
    const caller = work.ctx.principal.userId;
    if (caller && routers.has(work.ctx.db)) await announceAfterCommit(work, WRITES, caller);
  },
  afterCommit(_types, work) {
    const caller = work.ctx.principal.userId;
    if (caller) routers.get(work.ctx.db)?.mark(caller);
  },
};
