import { type SQL, and, count, eq, inArray, ne, or, sql } from 'drizzle-orm';
import { orgs, projectGrants, projectRoles, projects } from '../../db/schema/index';
import type { Ctx } from '../context';
import { requireId } from '../instance/validate';
import { type ListResult, type PageRequest, emptyList, listResult, ordered, page } from '../list/page';
import { listRows, listSelect } from '../list/query';
import { type TextMethod, textCondition } from '../list/text-filter';
import { type Project, findProject, grantsSeenBy, projectNotFound } from './access';

/** One record of ListProjects: an owned project, or a project as granted to one organization. */
export interface ProjectRecord extends Project {
  grantId: string | null;
  grantedOrgId: string | null;
  grantedOrgName: string | null;
  grantedState: string | null;
  grantedRoleKeys: string[] | null;
}

export type ProjectFilter =
  | { name: string; method?: TextMethod }
  | { projectIds: string[] }
  | { projectOrgId: string }
  | { grantedOrgId: string }
  | { ownedOnly: true }
  | { grantedOnly: true };

const anyOf = (conds: SQL[]) => (conds.length === 1 ? conds[0] : or(...conds));

/** UnitOfWork condition on an org-id column for a permission; null when the caller holds it nowhere. */
function inScope(scope: 'all' | string[], column: Parameters<typeof inArray>[0]): SQL | undefined | null {
  if (scope === 'all') return undefined;
  return scope.length ? inArray(column, scope) : null;
}

/**
 * Owned and granted projects as one list, filtered, counted and paged in SQL: owned records are the
 * projects the caller may read on the owner side; granted records are the grants to organizations on
 * which the caller holds `project.read`.
 */
export async function listProjects(
  ctx: Ctx,
  req: { filters?: ProjectFilter[]; page?: PageRequest },
): Promise<ListResult<ProjectRecord>> {
  const p = page(req.page);
  const filters = req.filters ?? [];
  const orgScope = ctx.principal.orgScope('project.read');
  const projectScope = ctx.principal.projectScope('project.read');

  const common: SQL[] = [ne(projects.state, 'REMOVED')];
  for (const f of filters) {
    if ('name' in f) common.push(textCondition(projects.name, f.name, f.method));
    else if ('projectIds' in f) common.push(f.projectIds.length ? inArray(projects.id, f.projectIds) : sql`false`);
    else if ('projectOrgId' in f) common.push(eq(projects.orgId, f.projectOrgId));
  }
  const grantedOrgFilter = filters.find((f): f is { grantedOrgId: string } => 'grantedOrgId' in f);
  const wantOwned = !filters.some((f) => 'grantedOnly' in f) && !grantedOrgFilter;
  const wantGranted = !filters.some((f) => 'ownedOnly' in f);

  const ownedScope: SQL[] | undefined =
    orgScope === 'all'
      ? []
      : [
          ...(orgScope.length ? [inArray(projects.orgId, orgScope)] : []),
          ...(projectScope.length ? [inArray(projects.id, projectScope)] : []),
        ];
  const owned =
    wantOwned && (ownedScope.length > 0 || orgScope === 'all')
      ? ctx.db
          .select({
            ...projectColumns,
            grantId: sql<string | null>`null::text`.as('grant_id'),
            grantedOrgId: sql<string | null>`null::text`.as('granted_org_id'),
            grantedOrgName: sql<string | null>`null::text`.as('granted_org_name'),
            grantedState: sql<string | null>`null::text`.as('granted_state'),
            grantedRoleKeys: sql<string[] | null>`null::text[]`.as('granted_role_keys'),
          })
          .from(projects)
          .where(and(...common, ...(ownedScope.length ? [anyOf(ownedScope)!] : [])))
      : undefined;

  const grantScope = inScope(orgScope, projectGrants.grantedOrgId);
  const granted =
    wantGranted && grantScope !== null
      ? ctx.db
          .select({
            ...projectColumns,
            grantId: sql<string | null>`${projectGrants.id}`.as('grant_id'),
            grantedOrgId: sql<string | null>`${projectGrants.grantedOrgId}`.as('granted_org_id'),
            grantedOrgName: sql<string | null>`${orgs.name}`.as('granted_org_name'),
            grantedState: sql<string | null>`${projectGrants.state}`.as('granted_state'),
            grantedRoleKeys: sql<string[] | null>`${projectGrants.roleKeys}`.as('granted_role_keys'),
          })
          .from(projectGrants)
          .innerJoin(projects, eq(projects.id, projectGrants.projectId))
          .innerJoin(orgs, eq(orgs.id, projectGrants.grantedOrgId))
          .where(
            and(
              ...common,
              ne(projectGrants.state, 'REMOVED'),
              ...(grantScope ? [grantScope] : []),
              ...(grantedOrgFilter ? [eq(projectGrants.grantedOrgId, grantedOrgFilter.grantedOrgId)] : []),
            ),
          )
      : undefined;

  const source = owned && granted ? owned.unionAll(granted) : (owned ?? granted);
  if (!source) return emptyList(p);
  const u = source.as('u');
  const rows = ctx.db
    .select()
    .from(u)
    .orderBy(...ordered(p, u.createdAt, u.id), sql`${u.grantId} nulls first`)
    .limit(p.limit)
    .offset(p.offset);
  return listResult(p, rows as PromiseLike<ProjectRecord[]>, ctx.db.select({ n: count() }).from(u));
}

const projectColumns = {
  id: projects.id,
  orgId: projects.orgId,
  name: projects.name,
  state: projects.state,
  projectRoleAssertion: projects.projectRoleAssertion,
  authorizationRequired: projects.authorizationRequired,
  projectAccessRequired: projects.projectAccessRequired,
  createdAt: projects.createdAt,
  changedAt: projects.changedAt,
};

/** A project the caller sees on the owner side, or as granted (then with the grant's fields). */
export async function getProject(ctx: Ctx, projectId: string): Promise<ProjectRecord> {
  const project = await findProject(ctx.db, requireId('project_id', projectId));
  if (!project) throw projectNotFound();
  const none = { grantId: null, grantedOrgId: null, grantedOrgName: null, grantedState: null, grantedRoleKeys: null };
  if (ctx.principal.canProject('project.read', project.id, project.orgId)) return { ...project, ...none };
  const [grant] = await grantsSeenBy(ctx.db, ctx.principal, project.id, 'project.read');
  if (!grant) throw projectNotFound();
  const [org] = await ctx.db.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, grant.grantedOrgId));
  return {
    ...project,
    grantId: grant.id,
    grantedOrgId: grant.grantedOrgId,
    grantedOrgName: org?.name ?? '',
    grantedState: grant.state,
    grantedRoleKeys: grant.roleKeys,
  };
}

export type ProjectRole = typeof projectRoles.$inferSelect;

/** Roles of a project: all of them for the owner side, the granted ones for a granted organization. */
export async function listProjectRoles(
  ctx: Ctx,
  req: { projectId: string; keyPrefix?: string; page?: PageRequest },
): Promise<ListResult<ProjectRole>> {
  const p = page(req.page);
  const project = await findProject(ctx.db, requireId('project_id', req.projectId));
  if (!project) throw projectNotFound();
  const conds: SQL[] = [eq(projectRoles.projectId, project.id)];
  if (!ctx.principal.canProject('project.read', project.id, project.orgId)) {
    const grants = await grantsSeenBy(ctx.db, ctx.principal, project.id, 'project.read');
    if (!grants.length) throw projectNotFound();
    const keys = [...new Set(grants.flatMap((g) => g.roleKeys))];
    conds.push(keys.length ? inArray(projectRoles.key, keys) : sql`false`);
  }
  if (req.keyPrefix) conds.push(textCondition(projectRoles.key, req.keyPrefix, 'starts_with'));
  return listRows(ctx.db, projectRoles, and(...conds), p, projectRoles.key);
}

export interface ProjectGrantRecord {
  id: string;
  projectId: string;
  projectName: string;
  orgId: string;
  grantedOrgId: string;
  grantedOrgName: string;
  roleKeys: string[];
  state: string;
  createdAt: Date;
  changedAt: Date;
}

/** Grants visible from the granting side (project readers) or the granted side (its org's readers). */
export async function listProjectGrants(
  ctx: Ctx,
  req: { projectId?: string; grantedOrgId?: string; page?: PageRequest },
): Promise<ListResult<ProjectGrantRecord>> {
  const p = page(req.page);
  const orgScope = ctx.principal.orgScope('project.read');
  const projectScope = ctx.principal.projectScope('project.read');
  const conds: SQL[] = [ne(projectGrants.state, 'REMOVED'), ne(projects.state, 'REMOVED')];
  if (orgScope !== 'all') {
    const visible: SQL[] = [];
    if (orgScope.length) visible.push(inArray(projects.orgId, orgScope), inArray(projectGrants.grantedOrgId, orgScope));
    if (projectScope.length) visible.push(inArray(projects.id, projectScope));
    if (!visible.length) return emptyList(p);
    conds.push(anyOf(visible)!);
  }
  if (req.projectId) conds.push(eq(projectGrants.projectId, req.projectId));
  if (req.grantedOrgId) conds.push(eq(projectGrants.grantedOrgId, req.grantedOrgId));
  const query = () =>
    ctx.db
      .select({
        id: projectGrants.id,
        projectId: projectGrants.projectId,
        projectName: projects.name,
        orgId: projectGrants.orgId,
        grantedOrgId: projectGrants.grantedOrgId,
        grantedOrgName: orgs.name,
        roleKeys: projectGrants.roleKeys,
        state: projectGrants.state,
        createdAt: projectGrants.createdAt,
        changedAt: projectGrants.changedAt,
      })
      .from(projectGrants)
      .innerJoin(projects, eq(projects.id, projectGrants.projectId))
      .innerJoin(orgs, eq(orgs.id, projectGrants.grantedOrgId))
      .where(and(...conds))
      .$dynamic();
  return listSelect(ctx.db, p, query, projectGrants.createdAt, projectGrants.id);
}
