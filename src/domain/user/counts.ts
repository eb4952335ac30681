import { inArray, sql, sum } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { userCounts } from '../../db/schema/index';
import type { Job } from '../../jobs';
import type { Ctx } from '../context';
import type { UserFilter } from './queries';

/**
 * The total of a ListUsers that only narrows by organization, from the trigger-kept user_counts
 * (migration 0005) instead of counting the users: O(organizations), not O(users). Undefined when
 * the filters need a real count.
 */
export async function countedTotal(ctx: Ctx, filters: UserFilter[]): Promise<number | undefined> {
  const scope = ctx.principal.orgScope('user.read');
  if (filters.length === 0) {
    if (scope === 'all') return liveUsers(ctx.db);
    if (!scope.length) return undefined;
    // The caller also sees itself, counted already when its organization is in its scope.
    return (await liveUsers(ctx.db, scope)) + (scope.includes(ctx.principal.orgId) ? 0 : 1);
  }
  const [only] = filters;
  if (filters.length === 1 && 'orgId' in only && (scope === 'all' || scope.includes(only.orgId)))
    return liveUsers(ctx.db, [only.orgId]);
  return undefined;
}

async function liveUsers(db: Db, orgIds?: string[]): Promise<number> {
  const [row] = await db
    .select({ live: sum(userCounts.live).mapWith(Number) })
    .from(userCounts)
    .where(orgIds ? inArray(userCounts.orgId, orgIds) : undefined);
  return row?.live ?? 0;
}

/**
 * Folds each organization's delta rows into one. Safe on several replicas at once: a DELETE only
 * takes committed rows, and rows another replica already folded are skipped.
 */
export async function compactUserCounts(db: Db): Promise<void> {
  await db.execute(sql`
    with busy as (select org_id from user_counts group by org_id having count(*) > 1 limit 1000),
    gone as (delete from user_counts c using busy where c.org_id = busy.org_id returning c.org_id, c.live)
    insert into user_counts (org_id, live)
    select org_id, sum(live) from gone group by org_id having sum(live) <> 0`);
}

export const userCountCompactionJob: Job = {
  name: 'user-count-compaction',
  intervalMs: 5000,
  run: (deps) => compactUserCounts(deps.database.db),
};
