import { and, eq, ne, sql } from 'drizzle-orm';
import { authorizations, projectGrants, projectRoles } from '../../db/schema/index';
import type { Ctx } from '../context';
import { alreadyExists, notFound } from '../errors';
import { execute, type UnitOfWork, type UniqueConstraintErrors } from '../execute';
import { optionalNonEmptyText, requireId, requireText } from '../instance/validate';
import { projectForChange } from './access';

/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const projectRoleUniqueConstraints: UniqueConstraintErrors = {
  project_roles_project_id_key_pk: () =>
    alreadyExists('Errors.Project.Role.AlreadyExists', 'the project already has a role with this key'),
};

const roleNotFound = () => notFound('Errors.Project.Role.NotFound', 'the project has no role with this key');

export type AddProjectRoleInput = { projectId: string; key: string; displayName: string; group?: string };

export async function addProjectRole(ctx: Ctx, input: AddProjectRoleInput): Promise<{ createdAt: Date }> {
  checkAddProjectRole(input);
  return execute(ctx, (work) => addProjectRoleIn(work, input));
}

function checkAddProjectRole(input: AddProjectRoleInput) {
  const projectId = requireId('project_id', input.projectId);
  const key = requireText('role_key', input.key);
  const displayName = requireText('display_name', input.displayName);
  const group = optionalNonEmptyText('group', input.group) ?? '';
  return { projectId, key, displayName, group };
}

/** AddProjectRole inside a running command (the bulk import adds many in one transaction). */
export async function addProjectRoleIn(work: UnitOfWork, input: AddProjectRoleInput): Promise<{ createdAt: Date }> {
  const { projectId, key, displayName, group } = checkAddProjectRole(input);
  const project = await projectForChange(work, projectId, 'project.role.write');
  const [row] = await work.tx
    .insert(projectRoles)
    .values({ projectId, key, displayName, group })
    .returning({ createdAt: projectRoles.createdAt });
  work.push({
    aggregateType: 'project',
    aggregateId: projectId,
    type: 'project.role.added',
    payload: { key, displayName, group },
    resourceOwner: project.orgId,
  });
  return { createdAt: row.createdAt };
}

export async function updateProjectRole(
  ctx: Ctx,
  input: { projectId: string; key: string; displayName?: string; group?: string },
): Promise<{ changedAt: Date }> {
  const projectId = requireId('project_id', input.projectId);
  const key = requireText('role_key', input.key);
  const displayName = optionalNonEmptyText('display_name', input.displayName);
  const group = input.group?.trim();
  return execute(ctx, async (work) => {
    const project = await projectForChange(work, projectId, 'project.role.write');
    const where = and(eq(projectRoles.projectId, projectId), eq(projectRoles.key, key));
    const [role] = await work.tx.select().from(projectRoles).where(where);
    if (!role) throw roleNotFound();
    const set: { displayName?: string; group?: string } = {};
    if (displayName !== undefined && displayName !== role.displayName) set.displayName = displayName;
    if (group !== undefined && group !== role.group) set.group = group;
    if (!Object.keys(set).length) return { changedAt: role.changedAt };
    const changedAt = new Date();
    await work.tx
      .update(projectRoles)
      .set({ ...set, changedAt })
      .where(where);
    work.push({
      aggregateType: 'project',
      aggregateId: projectId,
      type: 'project.role.changed',
      payload: { key, ...set },
      resourceOwner: project.orgId,
    });
    return { changedAt };
  });
}

/** Removes a role; grants and authorizations of the project lose the key in the same transaction. */
export async function removeProjectRole(
  ctx: Ctx,
  input: { projectId: string; key: string },
): Promise<{ removedAt: Date }> {
  const projectId = requireId('project_id', input.projectId);
  const key = requireText('role_key', input.key);
  return execute(ctx, async (work) => {
    const project = await projectForChange(work, projectId, 'project.role.write');
    const gone = await work.tx
      .delete(projectRoles)
      .where(and(eq(projectRoles.projectId, projectId), eq(projectRoles.key, key)))
      .returning({ key: projectRoles.key });
    const removedAt = new Date();
    if (!gone.length) return { removedAt };
    await dropRoleKey(work, projectGrants, projectId, key, removedAt);
    await dropRoleKey(work, authorizations, projectId, key, removedAt);
    work.push({
      aggregateType: 'project',
      aggregateId: projectId,
      type: 'project.role.removed',
      payload: { key },
      resourceOwner: project.orgId,
    });
    return { removedAt };
  });
}

/** The project's grants or authorizations (not removed) that hold the role key lose it. */
async function dropRoleKey(
  work: UnitOfWork,
  table: typeof projectGrants | typeof authorizations,
  projectId: string,
  key: string,
  at: Date,
): Promise<void> {
  await work.tx
    .update(table)
    .set({ roleKeys: sql`array_remove(${table.roleKeys}, ${key})`, changedAt: at })
    .where(and(eq(table.projectId, projectId), ne(table.state, 'REMOVED'), sql`${key} = any(${table.roleKeys})`));
}
