import { and, eq, ne } from 'drizzle-orm';
import { authorizations, projectRoles, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { DomainError, alreadyExists, failedPrecondition, invalidArgument, notFound, permissionDenied } from '../errors';
import { execute, type UnitOfWork, type UniqueConstraintErrors } from '../execute';
import { newId } from '../ids';
import { requireId } from '../instance/validate';
import { type Project, findProject, findProjectGrant, grantsSeenBy, projectNotFound } from '../project/access';

/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const authorizationUniqueConstraints: UniqueConstraintErrors = {
  authorizations_user_project_org_uq: () =>
    alreadyExists(
      'Errors.Authorization.AlreadyExists',
      'the user already has an authorization on this project from this organization',
    ),
};

export type Authorization = typeof authorizations.$inferSelect;

const authorizationNotFound = () => notFound('Errors.Authorization.NotFound', 'authorization not found');

/**
 * Who gives an authorization decides what may be given: the project's organization any role of the
 * project to any user; a granted organization only the granted roles, only to its own users.
 */
interface Giver {
  project: Project;
  orgId: string;
  grantId: string | null;
  allowedKeys: Set<string>;
}

async function giverFor(work: UnitOfWork, project: Project, orgId: string): Promise<Giver> {
  const p = work.ctx.principal;
  if (orgId === project.orgId) {
    if (!p.canProject('authorization.write', project.id, project.orgId)) await denyOrHide(work, project);
    const roles = await work.tx
      .select({ key: projectRoles.key })
      .from(projectRoles)
      .where(eq(projectRoles.projectId, project.id));
    return { project, orgId, grantId: null, allowedKeys: new Set(roles.map((r) => r.key)) };
  }
  const grant = await findProjectGrant(work.tx, project.id, orgId);
  const canSee = p.canProject('project.read', project.id, project.orgId) || p.canOrg('project.read', orgId);
  if (!grant || !canSee) {
    if (!canSee) await denyOrHide(work, project);
    throw notFound('Errors.Project.Grant.NotFound', 'the project is not granted to organization_id');
  }
  if (!p.canOrg('authorization.write', orgId))
    throw permissionDenied('needs authorization.write on the granted organization');
  return { project, orgId, grantId: grant.id, allowedKeys: new Set(grant.roleKeys) };
}

async function denyOrHide(work: UnitOfWork, project: Project): Promise<never> {
  const p = work.ctx.principal;
  const visible =
    p.canProject('project.read', project.id, project.orgId) ||
    (await grantsSeenBy(work.tx, p, project.id, 'project.read')).length > 0;
  if (!visible) throw projectNotFound();
  throw permissionDenied('needs authorization.write on the project');
}

function checkKeys(giver: Giver, keys: string[]): string[] {
  const unique = [...new Set(keys)];
  const bad = unique.find((k) => !giver.allowedKeys.has(k));
  if (bad !== undefined) {
    throw invalidArgument(
      'Errors.Project.Role.NotFound',
      giver.grantId
        ? `role_keys: "${bad}" is not granted to the organization`
        : `role_keys: "${bad}" is not a role of the project`,
    );
  }
  return unique;
}

export type CreateAuthorizationInput = { userId: string; projectId: string; orgId?: string; roleKeys: string[] };

export async function createAuthorization(
  ctx: Ctx,
  input: CreateAuthorizationInput,
): Promise<{ id: string; createdAt: Date }> {
  requireId('user_id', input.userId);
  requireId('project_id', input.projectId);
  return execute(ctx, (work) => createAuthorizationIn(work, input));
}

/** CreateAuthorization inside a running command (the bulk import creates many in one transaction). */
export async function createAuthorizationIn(
  work: UnitOfWork,
  input: CreateAuthorizationInput,
): Promise<{ id: string; createdAt: Date }> {
  const userId = requireId('user_id', input.userId);
  const projectId = requireId('project_id', input.projectId);
  await work.load('project', projectId);
  const project = await findProject(work.tx, projectId, 'share');
  if (!project) throw projectNotFound();
  const giver = await giverFor(work, project, input.orgId || project.orgId);
  const roleKeys = checkKeys(giver, input.roleKeys);
  const [user] = await work.tx
    .select({ orgId: users.orgId })
    .from(users)
    .where(and(eq(users.id, userId), ne(users.state, 'REMOVED')));
  // A user of an organization the caller cannot read does not exist for it (the project's own
  // organization, or the granted one, is the giver's and always visible).
  if (!user || (user.orgId !== giver.orgId && !work.ctx.principal.canOrg('user.read', user.orgId))) {
    throw notFound('Errors.User.NotFound', 'user not found');
  }
  if (giver.grantId && user.orgId !== giver.orgId) {
    throw invalidArgument(
      'Errors.Authorization.User.Foreign',
      'user_id: a granted organization may only authorize its own users',
    );
  }
  const id = newId();
  work.created('authorization', id);
  const [row] = await work.tx
    .insert(authorizations)
    .values({ id, userId, projectId, orgId: giver.orgId, projectGrantId: giver.grantId, roleKeys })
    .returning({ createdAt: authorizations.createdAt });
  work.push({
    aggregateType: 'authorization',
    aggregateId: id,
    type: 'authorization.added',
    payload: { userId, projectId, projectGrantId: giver.grantId, roleKeys },
    resourceOwner: giver.orgId,
  });
  return { id, createdAt: row.createdAt };
}

/** Loads an authorization for a change; one the caller may not manage is NOT_FOUND. */
async function authorizationFor(
  work: UnitOfWork,
  id: string,
): Promise<{ authz: Authorization; giver: Giver } | undefined> {
  const [authz] = await work.tx.select().from(authorizations).where(eq(authorizations.id, id));
  if (!authz) throw authorizationNotFound();
  const project = await findProject(work.tx, authz.projectId);
  if (!project) throw authorizationNotFound();
  const p = work.ctx.principal;
  const sees =
    authz.userId === p.userId ||
    p.canOrg('authorization.read', authz.orgId) ||
    p.canProject('authorization.read', project.id, project.orgId);
  if (!sees) throw authorizationNotFound();
  if (authz.state === 'REMOVED') return undefined;
  try {
    return { authz, giver: await giverFor(work, project, authz.orgId) };
  } catch (err) {
    // The caller sees this authorization (e.g. its own) but not the project behind it.
    if (err instanceof DomainError && err.kind === 'not_found')
      throw permissionDenied('needs authorization.write on the project');
    throw err;
  }
}

export async function updateAuthorization(
  ctx: Ctx,
  input: { id: string; roleKeys: string[] },
): Promise<{ changedAt: Date }> {
  const id = requireId('id', input.id);
  return execute(ctx, async (work) => {
    await work.load('authorization', id);
    const found = await authorizationFor(work, id);
    if (!found) throw authorizationNotFound();
    const roleKeys = checkKeys(found.giver, input.roleKeys);
    const changedAt = new Date();
    await work.tx.update(authorizations).set({ roleKeys, changedAt }).where(eq(authorizations.id, id));
    work.push({
      aggregateType: 'authorization',
      aggregateId: id,
      type: 'authorization.changed',
      payload: { roleKeys },
      resourceOwner: found.authz.orgId,
    });
    return { changedAt };
  });
}

/**
 * Deactivates or activates an authorization: an inactive one stays, with its roles, but counts nowhere (the
 * claims and the token checks read only ACTIVE ones). Needs what a change of its roles needs.
 */
export async function setAuthorizationState(
  ctx: Ctx,
  input: { id: string; state: 'ACTIVE' | 'INACTIVE' },
): Promise<{ changedAt: Date }> {
  const id = requireId('id', input.id);
  return execute(ctx, async (work) => {
    await work.load('authorization', id);
    const found = await authorizationFor(work, id);
    if (!found) throw authorizationNotFound();
    if (found.authz.state === input.state)
      throw input.state === 'INACTIVE'
        ? failedPrecondition('Errors.Authorization.NotActive', 'the authorization is already inactive')
        : failedPrecondition('Errors.Authorization.NotInactive', 'the authorization is already active');
    const changedAt = new Date();
    await work.tx.update(authorizations).set({ state: input.state, changedAt }).where(eq(authorizations.id, id));
    work.push({
      aggregateType: 'authorization',
      aggregateId: id,
      type: input.state === 'INACTIVE' ? 'authorization.deactivated' : 'authorization.reactivated',
      payload: {},
      resourceOwner: found.authz.orgId,
    });
    return { changedAt };
  });
}

export async function deleteAuthorization(ctx: Ctx, input: { id: string }): Promise<{ deletedAt: Date }> {
  const id = requireId('id', input.id);
  return execute(ctx, async (work) => {
    await work.load('authorization', id);
    const found = await authorizationFor(work, id);
    const deletedAt = new Date();
    if (!found) return { deletedAt };
    await work.tx
      .update(authorizations)
      .set({ state: 'REMOVED', changedAt: deletedAt })
      .where(eq(authorizations.id, id));
    work.push({
      aggregateType: 'authorization',
      aggregateId: id,
      type: 'authorization.removed',
      payload: {},
      resourceOwner: found.authz.orgId,
    });
    return { deletedAt };
  });
}
