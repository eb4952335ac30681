import { type SQL, and, eq, inArray, ne, or, sql } from 'drizzle-orm';
import { administrators, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { type ListResult, type PageRequest, page } from '../list/page';
import { listSelect } from '../list/query';

export type AdministratorRecord = typeof administrators.$inferSelect;

export type ResourceFilter = { instance: true } | { orgId: string } | { projectId: string };

/**
 * Memberships the caller may read, scoped in SQL: on the instance for instance readers, on
 * organizations and their projects for organization readers, on projects for project readers, and
 * the caller's own.
 */
export async function listAdministrators(
  ctx: Ctx,
  req: { resource?: ResourceFilter; userId?: string; role?: string; page?: PageRequest },
): Promise<ListResult<AdministratorRecord>> {
  const p = page(req.page);
  const pr = ctx.principal;
  const conds: SQL[] = [ne(users.state, 'REMOVED')];
  if (!pr.canInstance('administrator.read')) {
    const orgScope = pr.orgScope('administrator.read') as string[];
    const projectScope = pr.projectScope('administrator.read');
    const visible: SQL[] = [eq(administrators.userId, pr.userId)];
    if (orgScope.length) {
      visible.push(and(ne(administrators.resourceType, 'INSTANCE'), inArray(administrators.resourceOwner, orgScope))!);
    }
    if (projectScope.length)
      visible.push(and(eq(administrators.resourceType, 'PROJECT'), inArray(administrators.resourceId, projectScope))!);
    conds.push(or(...visible)!);
  }
  const r = req.resource;
  if (r && 'instance' in r) conds.push(eq(administrators.resourceType, 'INSTANCE'));
  if (r && 'orgId' in r) conds.push(eq(administrators.resourceType, 'ORG'), eq(administrators.resourceId, r.orgId));
  if (r && 'projectId' in r)
    conds.push(eq(administrators.resourceType, 'PROJECT'), eq(administrators.resourceId, r.projectId));
  if (req.userId) conds.push(eq(administrators.userId, req.userId));
  if (req.role) conds.push(sql`${req.role} = any(${administrators.roles})`);
  const query = () =>
    ctx.db
      .select({ a: administrators })
      .from(administrators)
      .innerJoin(users, eq(users.id, administrators.userId))
      .where(and(...conds))
      .$dynamic();
  const order = [administrators.createdAt, administrators.userId, administrators.resourceId];
  const found = await listSelect(ctx.db, p, query, ...order);
  return { ...found, items: found.items.map((x) => x.a) };
}
