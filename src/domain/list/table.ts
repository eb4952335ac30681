import { type SQL, count } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client';
import { type ListResult, type Page, listResult, ordered } from './page';

/** A page of whole rows of one table, ordered by `orderBy` in the page's direction, with its total. */
export function listRows<T extends PgTable>(
  db: Db,
  table: T,
  where: SQL | undefined,
  p: Page,
  ...orderBy: PgColumn[]
): Promise<ListResult<T['$inferSelect']>> {
  const rows = db
    .select()
    .from(table as PgTable)
    .where(where)
    .orderBy(...ordered(p, ...orderBy))
    .limit(p.limit)
    .offset(p.offset);
  return listResult(
    p,
    rows as PromiseLike<T['$inferSelect'][]>,
    db
      .select({ n: count() })
      .from(table as PgTable)
      .where(where),
  );
}
