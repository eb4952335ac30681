import { and, eq } from 'drizzle-orm';
import {
  administrators,
  applications,
  authorizations,
  projectGrants,
  projectRoles,
  projects,
} from '../../db/schema/index';
import { invalidatePrincipal } from '../../authz/authenticate';
import type { Ctx } from '../context';
import type { TypedEvent } from '../events/registry';
import { alreadyExists, failedPrecondition } from '../errors';
import { execute, type UnitOfWork, type UniqueConstraintErrors } from '../execute';
import { newId } from '../ids';
import { optionalId, requireId, requireText } from '../instance/validate';
import { refuseSystemProject } from '../instance/system-resources';
import { orgFor } from '../org/access';
import { type Project, projectForChange } from './access';
import { markRemoved } from '../mark-removed';

/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const projectUniqueConstraints: UniqueConstraintErrors = {
  projects_pkey: () => alreadyExists('Errors.Project.AlreadyExists', 'a project with this id already exists'),
};

export interface ProjectFlags {
  projectRoleAssertion?: boolean;
  authorizationRequired?: boolean;
  projectAccessRequired?: boolean;
}

export type CreateProjectInput = { orgId: string; id?: string; name: string } & ProjectFlags;

export async function createProject(ctx: Ctx, input: CreateProjectInput): Promise<{ id: string; createdAt: Date }> {
  const { id } = checkCreateProject(input);
  return execute(ctx, (work) => createProjectIn(work, { ...input, id }));
}

function checkCreateProject(input: CreateProjectInput) {
  const orgId = requireId('organization_id', input.orgId);
  const name = requireText('name', input.name);
  const id = optionalId('project_id', input.id) ?? newId();
  return { orgId, name, id };
}

/** CreateProject inside a running command (the bulk import creates many in one transaction). */
export async function createProjectIn(
  work: UnitOfWork,
  input: CreateProjectInput,
): Promise<{ id: string; createdAt: Date }> {
  const { orgId, name, id } = checkCreateProject(input);
  await orgFor(work.tx, work.ctx.principal, orgId, 'project.write', 'share');
  work.created('project', id);
  const flags = {
    projectRoleAssertion: input.projectRoleAssertion ?? false,
    authorizationRequired: input.authorizationRequired ?? false,
    projectAccessRequired: input.projectAccessRequired ?? false,
  };
  const [row] = await work.tx
    .insert(projects)
    .values({ id, orgId, name, ...flags })
    .returning({ createdAt: projects.createdAt });
  work.push({
    aggregateType: 'project',
    aggregateId: id,
    type: 'project.added',
    payload: { name, ...flags },
    resourceOwner: orgId,
  });
  return { id, createdAt: row.createdAt };
}

async function changeProject(
  ctx: Ctx,
  projectId: string,
  perm: 'project.write',
  apply: (p: Project) =>
    | (TypedEvent<'project.changed' | 'project.deactivated' | 'project.reactivated'> & {
        set: Partial<typeof projects.$inferInsert>;
      })
    | undefined,
): Promise<{ changedAt: Date }> {
  requireId('project_id', projectId);
  return execute(ctx, async (work) => {
    const project = await projectForChange(work, projectId, perm);
    const change = apply(project);
    if (!change) return { changedAt: project.changedAt };
    const changedAt = new Date();
    await work.tx
      .update(projects)
      .set({ ...change.set, changedAt })
      .where(eq(projects.id, projectId));
    work.push({
      aggregateType: 'project',
      aggregateId: projectId,
      type: change.type,
      payload: change.payload,
      resourceOwner: project.orgId,
    });
    return { changedAt };
  });
}

export function updateProject(ctx: Ctx, input: { projectId: string; name?: string } & ProjectFlags) {
  const name = input.name === undefined ? undefined : requireText('name', input.name);
  return changeProject(ctx, input.projectId, 'project.write', (p) => {
    const set: Partial<typeof projects.$inferInsert> = {};
    if (name !== undefined && name !== p.name) set.name = name;
    for (const k of ['projectRoleAssertion', 'authorizationRequired', 'projectAccessRequired'] as const) {
      if (input[k] !== undefined && input[k] !== p[k]) set[k] = input[k];
    }
    return Object.keys(set).length ? { type: 'project.changed', payload: set, set } : undefined;
  });
}

export function deactivateProject(ctx: Ctx, input: { projectId: string }) {
  return changeProject(ctx, input.projectId, 'project.write', (p) => {
    if (p.state === 'INACTIVE') throw failedPrecondition('Errors.Project.NotActive', 'the project is already inactive');
    return { type: 'project.deactivated', set: { state: 'INACTIVE' } };
  });
}

export function activateProject(ctx: Ctx, input: { projectId: string }) {
  return changeProject(ctx, input.projectId, 'project.write', (p) => {
    if (p.state === 'ACTIVE') throw failedPrecondition('Errors.Project.NotInactive', 'the project is already active');
    return { type: 'project.reactivated', set: { state: 'ACTIVE' } };
  });
}

/** Removes a project with its roles, grants, applications, authorizations and memberships. */
export async function deleteProject(ctx: Ctx, input: { projectId: string }): Promise<{ deletedAt: Date }> {
  const projectId = requireId('project_id', input.projectId);
  return execute(ctx, async (work) => {
    const [row] = await work.tx.select().from(projects).where(eq(projects.id, projectId));
    if (row?.state === 'REMOVED' && ctx.principal.canProject('project.delete', row.id, row.orgId))
      return { deletedAt: row.changedAt };
    const project = await projectForChange(work, projectId, 'project.delete');
    refuseSystemProject(project.id);
    const deletedAt = new Date();
    await removeProjectRows(work, projectId, deletedAt);
    work.push({
      aggregateType: 'project',
      aggregateId: projectId,
      type: 'project.removed',
      payload: {},
      resourceOwner: project.orgId,
    });
    return { deletedAt };
  });
}

async function removeProjectRows(work: UnitOfWork, projectId: string, at: Date): Promise<void> {
  await markRemoved(work.tx, authorizations, eq(authorizations.projectId, projectId), at);
  await markRemoved(work.tx, projectGrants, eq(projectGrants.projectId, projectId), at);
  await markRemoved(work.tx, applications, eq(applications.projectId, projectId), at);
  await work.tx.delete(projectRoles).where(eq(projectRoles.projectId, projectId));
  const lost = await work.tx
    .delete(administrators)
    .where(and(eq(administrators.resourceType, 'PROJECT'), eq(administrators.resourceId, projectId)))
    .returning({ userId: administrators.userId });
  // Explicit: the memberships go with the project without an administrator.removed event each.
  for (const m of lost) await invalidatePrincipal(work, m.userId);
  await work.tx.update(projects).set({ state: 'REMOVED', changedAt: at }).where(eq(projects.id, projectId));
}
