import { type SQL, and, ne } from 'drizzle-orm';
import type { Db } from '../db/client';
import { applications, authorizations, projectGrants, projects } from '../db/schema/index';

/** Tables whose rows are kept when removed: state REMOVED, changedAt the time of removal. */
type Removable = typeof authorizations | typeof projectGrants | typeof applications | typeof projects;

/** Marks the rows of `table` that `where` selects and that are not removed yet as removed `at`. */
export async function markRemoved(tx: Db, table: Removable, where: SQL | undefined, at: Date): Promise<void> {
  await tx
    .update(table)
    .set({ state: 'REMOVED', changedAt: at })
    .where(and(where, ne(table.state, 'REMOVED')));
}
