import { and, eq, ne } from 'drizzle-orm';
import type { Principal } from '../../authz/principal';
import type { Permission } from '../../authz/roles';
import type { Db } from '../../db/client';
import { projectGrants, projects } from '../../db/schema/index';
import { invalidArgument, notFound, permissionDenied } from '../errors';
import type { UnitOfWork } from '../execute';
import { type RowLock, findNotRemoved } from '../find-not-removed';

export type Project = typeof projects.$inferSelect;
export type ProjectGrant = typeof projectGrants.$inferSelect;

export const projectNotFound = () => notFound('Errors.Project.NotFound', 'project not found');

/** A project that is not deleted, or undefined; commands lock it like organizations (RowLock). */
export function findProject(db: Db, id: string, lock?: RowLock): Promise<Project | undefined> {
  return findNotRemoved(db, projects, id, lock);
}

/**
 * The project's grant to the organization, unless deleted: at most one (project_grants_project_org_uq),
 * active or inactive.
 */
export async function findProjectGrant(
  db: Db,
  projectId: string,
  grantedOrgId: string,
): Promise<ProjectGrant | undefined> {
  const [grant] = await db
    .select()
    .from(projectGrants)
    .where(
      and(
        eq(projectGrants.projectId, projectId),
        eq(projectGrants.grantedOrgId, grantedOrgId),
        ne(projectGrants.state, 'REMOVED'),
      ),
    );
  return grant;
}

/** Grants of the project (not deleted) to organizations on which the caller holds `perm`. */
export async function grantsSeenBy(
  db: Db,
  principal: Principal,
  projectId: string,
  perm: Permission,
): Promise<ProjectGrant[]> {
  const rows = await db
    .select()
    .from(projectGrants)
    .where(and(eq(projectGrants.projectId, projectId), ne(projectGrants.state, 'REMOVED')));
  return rows.filter((g) => principal.canOrg(perm, g.grantedOrgId));
}

/**
 * Loads a project for a caller who needs `perm` on it as its owner side (owning organization, project
 * membership or instance). A caller who sees it only as granted gets PERMISSION_DENIED; one who does
 * not see it at all gets NOT_FOUND.
 */
async function projectFor(
  db: Db,
  principal: Principal,
  id: string,
  perm: Permission,
  lock: RowLock = 'share',
): Promise<Project> {
  if (!id) throw invalidArgument('Errors.Invalid.project_id', 'project_id is required');
  const project = await findProject(db, id, lock);
  if (!project) throw projectNotFound();
  if (principal.canProject(perm, project.id, project.orgId)) return project;
  const visible =
    principal.canProject('project.read', project.id, project.orgId) ||
    (await grantsSeenBy(db, principal, project.id, 'project.read')).length > 0;
  if (!visible) throw projectNotFound();
  throw permissionDenied(`needs ${perm} on the project`);
}

/** For a command that records events on the project: locks its row, then reads its event sequence. */
export async function projectForChange(work: UnitOfWork, id: string, perm: Permission): Promise<Project> {
  const project = await projectFor(work.tx, work.ctx.principal, id, perm, 'update');
  await work.load('project', id);
  return project;
}
