import { randomUUID } from 'node:crypto';
import type { ReadRouter } from '../db/read-router';
import { perServer, type Runtime } from '../deps';
import { type AnnouncementReceiver, announceAfterCommit } from './cache';
import type { CommitObserver } from './execute';

/** The name under which a write's caller is announced on the cache channel. */
const WRITES = 'writes';
/** Between the announcing server and the caller in an announcement (ids hold no control characters). */
const SEP = '\u001e';

/** The server's read router and the name its announcements go out under; none without read replicas. */
const watching = perServer((): { server?: { router: ReadRouter; origin: string } } => ({}));

/**
 * From now on, `router` learns of every write this server commits; the receivers returned, given to
 * listenForInvalidations, tell it of the writes of other processes and of the times it may have missed some.
 */
export function watchWrites(runtime: Runtime, router: ReadRouter): ReadonlyMap<string, AnnouncementReceiver> {
  const origin = randomUUID();
  runtime.get(watching).server = { router, origin };
  const receiver: AnnouncementReceiver = {
    heard: (announced) => {
      const [from, caller] = announced.split(SEP);
      // This server marked its own writer at the commit already; marking again would only re-fetch.
      if (from !== origin && caller) router.mark(caller);
    },
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
    const { server } = work.ctx.runtime.get(watching);
    if (caller && server) await announceAfterCommit(work, WRITES, `${server.origin}${SEP}${caller}`);
  },
  afterCommit(_types, work) {
    const caller = work.ctx.principal.userId;
    if (caller) work.ctx.runtime.get(watching).server?.router.mark(caller);
  },
};
