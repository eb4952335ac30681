import { type SQL, and, eq, inArray, ne, or, sql } from 'drizzle-orm';
import { authorizations, projects, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { type ListResult, type PageRequest, page } from '../list/page';
import { listSelect } from '../list/query';

export interface AuthorizationRecord {
  id: string;
  userId: string;
  projectId: string;
  projectOrgId: string;
  orgId: string;
  projectGrantId: string | null;
  roleKeys: string[];
  /** ACTIVE | INACTIVE */
  state: string;
  createdAt: Date;
  changedAt: Date;
}

/**
 * Authorizations the caller may read, scoped in SQL: given by an organization the caller reads
 * authorizations of, on a project it reads authorizations of, or the caller's own.
 */
export async function listAuthorizations(
  ctx: Ctx,
  req: {
    userId?: string;
    projectId?: string;
    orgId?: string;
    roleKey?: string;
    state?: 'ACTIVE' | 'INACTIVE';
    page?: PageRequest;
  },
): Promise<ListResult<AuthorizationRecord>> {
  const p = page(req.page);
  const orgScope = ctx.principal.orgScope('authorization.read');
  const projectScope = ctx.principal.projectScope('authorization.read');
  const conds: SQL[] = [ne(authorizations.state, 'REMOVED'), ne(projects.state, 'REMOVED'), ne(users.state, 'REMOVED')];
  if (orgScope !== 'all') {
    const visible: SQL[] = [eq(authorizations.userId, ctx.principal.userId)];
    if (orgScope.length) visible.push(inArray(authorizations.orgId, orgScope), inArray(projects.orgId, orgScope));
    if (projectScope.length) visible.push(inArray(authorizations.projectId, projectScope));
    conds.push(or(...visible)!);
  }
  if (req.userId) conds.push(eq(authorizations.userId, req.userId));
  if (req.projectId) conds.push(eq(authorizations.projectId, req.projectId));
  if (req.orgId) conds.push(eq(authorizations.orgId, req.orgId));
  if (req.state) conds.push(eq(authorizations.state, req.state));
  if (req.roleKey) conds.push(sql`${req.roleKey} = any(${authorizations.roleKeys})`);
  const query = () =>
    ctx.db
      .select({
        id: authorizations.id,
        userId: authorizations.userId,
        projectId: authorizations.projectId,
        projectOrgId: projects.orgId,
        orgId: authorizations.orgId,
        projectGrantId: authorizations.projectGrantId,
        roleKeys: authorizations.roleKeys,
        state: authorizations.state,
        createdAt: authorizations.createdAt,
        changedAt: authorizations.changedAt,
      })
      .from(authorizations)
      .innerJoin(projects, eq(projects.id, authorizations.projectId))
      .innerJoin(users, eq(users.id, authorizations.userId))
      .where(and(...conds))
      .$dynamic();
  return listSelect(ctx.db, p, query, authorizations.createdAt, authorizations.id);
}
