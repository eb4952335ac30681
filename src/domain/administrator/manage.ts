import { and, eq, ne } from 'drizzle-orm';
import type { Permission } from '../../authz/roles';
import { administrators, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { invalidArgument, notFound, permissionDenied } from '../errors';
import { execute, type UnitOfWork } from '../execute';
import { requireId } from '../instance/validate';
import { lockInstance } from '../instance/lock';
import { orgForChange } from '../org/access';
import { requireCovers } from '../user/access';
import { projectForChange } from '../project/access';
import { addAdministrator, checkRoles } from './commands';
import { requireInstancePermission } from '../instance/permission';
import { refuseLosingLastOwner } from '../instance/last-owner';

/** The resource of a membership as the API names it. */
export type ResourceRef = { instance: true } | { orgId: string } | { projectId: string };

interface Resolved {
  resourceType: 'INSTANCE' | 'ORG' | 'PROJECT';
  resourceId: string;
  resourceOwner: string;
  aggregateType: 'instance' | 'org' | 'project';
}

/** Resolves the resource for a caller who needs `perm` on it (NOT_FOUND when they cannot see it). */
async function resolveResource(work: UnitOfWork, ref: ResourceRef | undefined, perm: Permission): Promise<Resolved> {
  const { ctx } = work;
  if (!ref) throw invalidResource();
  if ('instance' in ref) {
    requireInstancePermission(ctx.principal, perm);
    await lockInstance(work);
    return {
      resourceType: 'INSTANCE',
      resourceId: ctx.instanceId,
      resourceOwner: ctx.instanceId,
      aggregateType: 'instance',
    };
  }
  if ('orgId' in ref) {
    const id = requireId('resource.organization_id', ref.orgId);
    const org = await orgForChange(work, id, perm);
    return { resourceType: 'ORG', resourceId: org.id, resourceOwner: org.id, aggregateType: 'org' };
  }
  const id = requireId('resource.project_id', ref.projectId);
  const project = await projectForChange(work, id, perm);
  return { resourceType: 'PROJECT', resourceId: project.id, resourceOwner: project.orgId, aggregateType: 'project' };
}

/** The row of one user's membership on one resource. */
function membership(userId: string, r: Resolved) {
  return and(
    eq(administrators.userId, userId),
    eq(administrators.resourceType, r.resourceType),
    eq(administrators.resourceId, r.resourceId),
  );
}

function invalidResource() {
  return invalidArgument('Errors.Invalid.resource', 'resource is required: instance, organization_id or project_id');
}

/**
 * Checks the user whose memberships change. The caller must be able to see the user (a user of an
 * organization it cannot read is NOT_FOUND, as if it did not exist; the resource's own organization
 * is always visible to its administrators), must cover every permission the user already holds
 * (requireCovers), and may only grant roles whose permissions it holds itself on that resource.
 */
async function memberForChange(work: UnitOfWork, userId: string, r: Resolved, roles: string[]): Promise<void> {
  const p = work.ctx.principal;
  const [user] = await work.tx
    .select({ orgId: users.orgId })
    .from(users)
    .where(and(eq(users.id, userId), ne(users.state, 'REMOVED')));
  if (!user || (user.orgId !== r.resourceOwner && !p.canOrg('user.read', user.orgId)))
    throw notFound('Errors.User.NotFound', 'user not found');
  await requireCovers(work.tx, p, userId);
  if (!p.covers([{ resourceType: r.resourceType, resourceId: r.resourceId, resourceOwner: r.resourceOwner, roles }])) {
    throw permissionDenied(
      'roles: the caller cannot grant permissions it does not hold itself',
      'Errors.Member.Privileged',
    );
  }
}

const memberNotFound = () => notFound('Errors.Member.NotFound', 'the user is not an administrator of this resource');

export async function createAdministrator(
  ctx: Ctx,
  input: { userId: string; resource?: ResourceRef; roles: string[] },
): Promise<{ createdAt: Date }> {
  requireId('user_id', input.userId);
  return execute(ctx, (work) => createAdministratorIn(work, input));
}

/** CreateAdministrator inside a running command (the bulk import adds many in one transaction). */
export async function createAdministratorIn(
  work: UnitOfWork,
  input: { userId: string; resource?: ResourceRef; roles: string[] },
): Promise<{ createdAt: Date }> {
  const userId = requireId('user_id', input.userId);
  const r = await resolveResource(work, input.resource, 'administrator.write');
  checkRoles(r.resourceType, input.roles);
  await memberForChange(work, userId, r, input.roles);
  await addAdministrator(work, {
    userId,
    resourceType: r.resourceType,
    resourceId: r.resourceId,
    resourceOwner: r.resourceOwner,
    roles: [...new Set(input.roles)],
  });
  return { createdAt: new Date() };
}

export async function updateAdministrator(
  ctx: Ctx,
  input: { userId: string; resource?: ResourceRef; roles: string[] },
): Promise<{ changedAt: Date }> {
  const userId = requireId('user_id', input.userId);
  return execute(ctx, async (work) => {
    const r = await resolveResource(work, input.resource, 'administrator.write');
    checkRoles(r.resourceType, input.roles);
    await memberForChange(work, userId, r, input.roles);
    const roles = [...new Set(input.roles)];
    if (r.resourceType === 'INSTANCE' && !roles.includes('IAM_OWNER'))
      await refuseLosingLastOwner(work, { userIds: [userId] }, 'cannot lose that role');
    const changedAt = new Date();
    const updated = await work.tx
      .update(administrators)
      .set({ roles, changedAt })
      .where(membership(userId, r))
      .returning({ userId: administrators.userId });
    if (!updated.length) throw memberNotFound();
    work.push({
      aggregateType: r.aggregateType,
      aggregateId: r.resourceId,
      type: 'administrator.changed',
      payload: { userId, roles },
      resourceOwner: r.resourceOwner,
    });
    return { changedAt };
  });
}

export async function deleteAdministrator(
  ctx: Ctx,
  input: { userId: string; resource?: ResourceRef },
): Promise<{ deletedAt: Date }> {
  const userId = requireId('user_id', input.userId);
  return execute(ctx, async (work) => {
    const r = await resolveResource(work, input.resource, 'administrator.write');
    await memberForChange(work, userId, r, []);
    if (r.resourceType === 'INSTANCE')
      await refuseLosingLastOwner(work, { userIds: [userId] }, 'cannot lose that role');
    const gone = await work.tx
      .delete(administrators)
      .where(membership(userId, r))
      .returning({ userId: administrators.userId });
    if (gone.length) {
      work.push({
        aggregateType: r.aggregateType,
        aggregateId: r.resourceId,
        type: 'administrator.removed',
        payload: { userId },
        resourceOwner: r.resourceOwner,
      });
    }
    return { deletedAt: new Date() };
  });
}
