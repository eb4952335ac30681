import { type AnyColumn, type SQL, count } from 'drizzle-orm';
import type { PgColumn, PgSelect, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import { type ListResult, type Page, listResult, ordered } from './page';

/**
 * A page of a list query, ordered by `orderBy` in the page's direction, and the count of all its matches.
 * `query` builds the SELECT … FROM … WHERE afresh for each use (drizzle builders change in place); the
 * count runs over it as a subquery, so the page and its total always see the same joins and filters.
 */
export function listSelect<Q extends PgSelect>(
  db: Db,
  p: Page,
  query: () => Q,
  ...orderBy: (AnyColumn | SQL)[]
): Promise<ListResult<Awaited<Q>[number]>> {
  const rows = query()
    .orderBy(...ordered(p, ...orderBy))
    .limit(p.limit)
    .offset(p.offset);
  const matches = query().as('matches') as unknown as PgTable;
  return listResult(p, rows as unknown as PromiseLike<Awaited<Q>>, db.select({ n: count() }).from(matches));
}

/** A page of whole rows of one table, ordered by `orderBy` in the page's direction, with its total. */
export function listRows<T extends PgTable>(
  db: Db,
  table: T,
  where: SQL | undefined,
  p: Page,
  ...orderBy: PgColumn[]
): Promise<ListResult<T['$inferSelect']>> {
  return listSelect(
    db,
    p,
    () =>
      db
        .select()
        .from(table as PgTable)
        .where(where)
        .$dynamic(),
    ...orderBy,
  );
}
