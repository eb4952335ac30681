import { and, eq, inArray, ne } from 'drizzle-orm';
import { authorizations, projectGrants, projectRoles } from '../../db/schema/index';
import type { Ctx } from '../context';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../errors';
import { execute, type UnitOfWork, type UniqueConstraintErrors } from '../execute';
import { newId } from '../ids';
import { requireId } from '../instance/validate';
import { findOrg } from '../org/access';
import { findProjectGrant, type Project, projectForChange, type ProjectGrant } from './access';
import { markRemoved } from '../mark-removed';

/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const projectGrantUniqueConstraints: UniqueConstraintErrors = {
  project_grants_project_org_uq: () =>
    alreadyExists('Errors.Project.Grant.AlreadyExists', 'the project is already granted to this organization'),
};

const grantNotFound = () =>
  notFound('Errors.Project.Grant.NotFound', 'the project is not granted to this organization');

/** Every key must be a role of the project; the error names the first unknown one. */
async function checkRoleKeys(work: UnitOfWork, projectId: string, keys: string[]): Promise<string[]> {
  const unique = [...new Set(keys)];
  if (!unique.length) return unique;
  const rows = await work.tx
    .select({ key: projectRoles.key })
    .from(projectRoles)
    .where(and(eq(projectRoles.projectId, projectId), inArray(projectRoles.key, unique)));
  const known = new Set(rows.map((r) => r.key));
  const unknown = unique.find((k) => !known.has(k));
  if (unknown !== undefined)
    throw invalidArgument('Errors.Project.Role.NotFound', `role_keys: "${unknown}" is not a role of the project`);
  return unique;
}

export async function createProjectGrant(
  ctx: Ctx,
  input: { projectId: string; grantedOrgId: string; roleKeys: string[] },
): Promise<{ id: string; createdAt: Date }> {
  const projectId = requireId('project_id', input.projectId);
  const grantedOrgId = requireId('granted_organization_id', input.grantedOrgId);
  return execute(ctx, async (work) => {
    const project = await projectForChange(work, projectId, 'project.grant.write');
    if (grantedOrgId === project.orgId) {
      throw invalidArgument(
        'Errors.Project.Grant.Owner',
        'granted_organization_id must not be the organization owning the project',
      );
    }
    if (!(await findOrg(work.tx, grantedOrgId, 'share')))
      throw notFound('Errors.Org.NotFound', 'granted organization not found');
    const roleKeys = await checkRoleKeys(work, projectId, input.roleKeys);
    const id = newId();
    const [row] = await work.tx
      .insert(projectGrants)
      .values({ id, projectId, orgId: project.orgId, grantedOrgId, roleKeys })
      .returning({ createdAt: projectGrants.createdAt });
    work.push({
      aggregateType: 'project',
      aggregateId: projectId,
      type: 'project.grant.added',
      payload: { grantId: id, grantedOrgId, roleKeys },
      resourceOwner: project.orgId,
    });
    return { id, createdAt: row.createdAt };
  });
}

async function grantFor(
  work: UnitOfWork,
  projectId: string,
  grantedOrgId: string,
): Promise<{ project: Project; grant: ProjectGrant }> {
  const project = await projectForChange(work, projectId, 'project.grant.write');
  const grant = await findProjectGrant(work.tx, projectId, grantedOrgId);
  if (!grant) throw grantNotFound();
  return { project, grant };
}

async function changeGrant(
  ctx: Ctx,
  input: { projectId: string; grantedOrgId: string },
  apply: (
    work: UnitOfWork,
    grant: ProjectGrant,
    at: Date,
  ) => Promise<{
    type: 'project.grant.changed' | 'project.grant.deactivated' | 'project.grant.reactivated';
    payload?: { roleKeys: string[] };
    set: Partial<ProjectGrant>;
  }>,
): Promise<{ changedAt: Date }> {
  const projectId = requireId('project_id', input.projectId);
  const grantedOrgId = requireId('granted_organization_id', input.grantedOrgId);
  return execute(ctx, async (work) => {
    const { project, grant } = await grantFor(work, projectId, grantedOrgId);
    const changedAt = new Date();
    const change = await apply(work, grant, changedAt);
    await work.tx
      .update(projectGrants)
      .set({ ...change.set, changedAt })
      .where(eq(projectGrants.id, grant.id));
    work.push({
      aggregateType: 'project',
      aggregateId: projectId,
      type: change.type,
      payload: { grantId: grant.id, grantedOrgId, ...change.payload },
      resourceOwner: project.orgId,
    });
    return { changedAt };
  });
}

/** Replaces the granted roles; authorizations given through the grant lose the roles taken away. */
export function updateProjectGrant(ctx: Ctx, input: { projectId: string; grantedOrgId: string; roleKeys: string[] }) {
  return changeGrant(ctx, input, async (work, grant, at) => {
    const roleKeys = await checkRoleKeys(work, grant.projectId, input.roleKeys);
    const kept = new Set(roleKeys);
    const given = await work.tx
      .select({ id: authorizations.id, roleKeys: authorizations.roleKeys })
      .from(authorizations)
      .where(and(eq(authorizations.projectGrantId, grant.id), ne(authorizations.state, 'REMOVED')));
    for (const a of given) {
      const next = a.roleKeys.filter((k) => kept.has(k));
      if (next.length !== a.roleKeys.length) {
        await work.tx.update(authorizations).set({ roleKeys: next, changedAt: at }).where(eq(authorizations.id, a.id));
      }
    }
    return { type: 'project.grant.changed', payload: { roleKeys }, set: { roleKeys } };
  });
}

export function deactivateProjectGrant(ctx: Ctx, input: { projectId: string; grantedOrgId: string }) {
  return changeGrant(ctx, input, async (_s, grant) => {
    if (grant.state === 'INACTIVE')
      throw failedPrecondition('Errors.Project.Grant.NotActive', 'the grant is already inactive');
    return { type: 'project.grant.deactivated', set: { state: 'INACTIVE' } };
  });
}

export function activateProjectGrant(ctx: Ctx, input: { projectId: string; grantedOrgId: string }) {
  return changeGrant(ctx, input, async (_s, grant) => {
    if (grant.state === 'ACTIVE')
      throw failedPrecondition('Errors.Project.Grant.NotInactive', 'the grant is already active');
    return { type: 'project.grant.reactivated', set: { state: 'ACTIVE' } };
  });
}

/** Removes the grant and the authorizations given through it. Removing it again succeeds. */
export async function deleteProjectGrant(
  ctx: Ctx,
  input: { projectId: string; grantedOrgId: string },
): Promise<{ deletedAt: Date }> {
  const projectId = requireId('project_id', input.projectId);
  const grantedOrgId = requireId('granted_organization_id', input.grantedOrgId);
  return execute(ctx, async (work) => {
    const project = await projectForChange(work, projectId, 'project.grant.write');
    const grant = await findProjectGrant(work.tx, projectId, grantedOrgId);
    const deletedAt = new Date();
    if (!grant) return { deletedAt };
    await markRemoved(work.tx, authorizations, eq(authorizations.projectGrantId, grant.id), deletedAt);
    await work.tx
      .update(projectGrants)
      .set({ state: 'REMOVED', changedAt: deletedAt })
      .where(eq(projectGrants.id, grant.id));
    work.push({
      aggregateType: 'project',
      aggregateId: projectId,
      type: 'project.grant.removed',
      payload: { grantId: grant.id, grantedOrgId },
      resourceOwner: project.orgId,
    });
    return { deletedAt };
  });
}
