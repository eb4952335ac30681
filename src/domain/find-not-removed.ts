import { and, eq, ne } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { orgs, projects } from '../db/schema/index';

/**
 * Row lock a command takes on an organization or project: `share` while it adds something that belongs
 * to it (so a concurrent delete waits and then sees it), `update` while it changes or deletes the row
 * itself. Without a lock for queries.
 */
export type RowLock = 'share' | 'update' | undefined;

/** The row with this id unless it is removed, or undefined; with `lock`, the row is locked (RowLock). */
export async function findNotRemoved<T extends typeof orgs | typeof projects>(
  db: Db,
  table: T,
  id: string,
  lock?: RowLock,
): Promise<T['$inferSelect'] | undefined> {
  const q = db
    .select()
    .from(table as typeof orgs)
    .where(and(eq(table.id, id), ne(table.state, 'REMOVED')));
  const [row] = lock ? await q.for(lock) : await q;
  return row;
}
