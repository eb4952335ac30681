import { revokeTokensOfOrg } from '../oidc/revoke-org';
import { and, eq, inArray, ne, or } from 'drizzle-orm';
import {
  administrators,
  applications,
  authorizations,
  instances,
  orgDomains,
  orgMetadata,
  orgs,
  projectGrants,
  projects,
  users,
} from '../../db/schema/index';
import { invalidatePrincipal } from '../../authz/authenticate';
import type { Ctx } from '../context';
import { failedPrecondition, permissionDenied } from '../errors';
import type { TypedEvent } from '../events/registry';
import { execute, type UnitOfWork } from '../execute';
import { requireId, requireText } from '../instance/validate';
import { refuseLosingLastOwner } from '../instance/last-owner';
import { refuseOrgOfSystemProject } from '../instance/system-resources';
import { removeUsersOfOrg } from '../user/lifecycle';
import { rescopeUsernames } from '../user/username-scope';
import { orgFor, orgForChange } from './access';
import { markRemoved } from '../mark-removed';

async function changeOrg(
  ctx: Ctx,
  orgId: string,
  apply: (
    work: UnitOfWork,
    org: Awaited<ReturnType<typeof orgFor>>,
  ) => Promise<
    | (TypedEvent<'org.changed' | 'org.login_policy.changed' | 'org.deactivated' | 'org.reactivated'> & {
        set: Partial<typeof orgs.$inferInsert>;
        afterwards?: (work: UnitOfWork) => Promise<void>;
      })
    | undefined
  >,
): Promise<{ changedAt: Date }> {
  requireId('organization_id', orgId);
  return execute(ctx, async (work) => {
    const org = await orgForChange(work, orgId, 'org.write');
    const change = await apply(work, org);
    if (!change) return { changedAt: org.changedAt };
    const changedAt = new Date();
    await work.tx
      .update(orgs)
      .set({ ...change.set, changedAt })
      .where(eq(orgs.id, orgId));
    await change.afterwards?.(work);
    work.push({
      aggregateType: 'org',
      aggregateId: orgId,
      type: change.type,
      payload: change.payload,
      resourceOwner: orgId,
    });
    return { changedAt };
  });
}

export function updateOrganization(ctx: Ctx, input: { orgId: string; name: string }) {
  const name = requireText('name', input.name);
  return changeOrg(ctx, input.orgId, async (_s, org) =>
    org.name === name ? undefined : { type: 'org.changed', payload: { name }, set: { name } },
  );
}

export interface OrgLoginPolicy {
  allowRegistration?: boolean;
  loginWithEmailAllowed?: boolean;
  userLoginMustBeDomain?: boolean;
}

/**
 * SetOrganizationLoginPolicy: the whole policy at once, each field yes / no / inherited (undefined).
 * A new domain policy moves the organization's usernames to their new scope in the same transaction.
 */
export function setOrganizationLoginPolicy(ctx: Ctx, input: { orgId: string } & OrgLoginPolicy) {
  const policy = {
    allowRegistration: input.allowRegistration ?? null,
    loginWithEmailAllowed: input.loginWithEmailAllowed ?? null,
    userLoginMustBeDomain: input.userLoginMustBeDomain ?? null,
  };
  return changeOrg(ctx, input.orgId, async (_s, org) => {
    const changed = Object.fromEntries(Object.entries(policy).filter(([k, v]) => org[k as keyof typeof policy] !== v));
    if (!Object.keys(changed).length) return undefined;
    // The domain policy decides which bare usernames are login names across the whole instance: an
    // organization that turned it off would own the bare `admin` of every other organization. So it
    // is the instance's to set, like the instance default, not the organization owner's.
    if ('userLoginMustBeDomain' in changed && !ctx.principal.canInstance('iam.policy.write')) {
      throw permissionDenied('user_login_must_be_domain needs iam.policy.write on the instance');
    }
    return {
      type: 'org.login_policy.changed',
      payload: changed,
      set: changed,
      afterwards: 'userLoginMustBeDomain' in changed ? rescopeUsernames : undefined,
    };
  });
}

export function deactivateOrganization(ctx: Ctx, input: { orgId: string }) {
  return changeOrg(ctx, input.orgId, async (work, org) => {
    if (org.state === 'INACTIVE')
      throw failedPrecondition('Errors.Org.NotActive', 'the organization is already inactive');
    await refuseDefaultOrg(work, org.id, 'deactivated');
    await refuseLosingLastOwner(work, { orgId: org.id }, 'belongs to this organization, so it cannot be deactivated');
    await revokeTokensOfOrg(work, org.id);
    return { type: 'org.deactivated', set: { state: 'INACTIVE' } };
  });
}

export function activateOrganization(ctx: Ctx, input: { orgId: string }) {
  return changeOrg(ctx, input.orgId, async (_work, org) => {
    if (org.state === 'ACTIVE')
      throw failedPrecondition('Errors.Org.NotInactive', 'the organization is already active');
    return { type: 'org.reactivated', set: { state: 'ACTIVE' } };
  });
}

async function refuseDefaultOrg(work: UnitOfWork, orgId: string, what: string): Promise<void> {
  const [row] = await work.tx
    .select({ id: instances.defaultOrgId })
    .from(instances)
    .where(eq(instances.id, work.ctx.instanceId));
  if (row?.id === orgId) throw failedPrecondition('Errors.Org.Default', `the default organization cannot be ${what}`);
}

/**
 * Deletes an organization and, in the same transaction, everything that belongs to it: its users
 * (their usernames become free), projects, applications, grants given and received, authorizations,
 * memberships, domains (free for others) and metadata. Deleting it again succeeds.
 */
export async function deleteOrganization(ctx: Ctx, input: { orgId: string }): Promise<{ deletedAt: Date }> {
  const orgId = requireId('organization_id', input.orgId);
  return execute(ctx, async (work) => {
    const [row] = await work.tx
      .select({ state: orgs.state, changedAt: orgs.changedAt })
      .from(orgs)
      .where(eq(orgs.id, orgId));
    if (row?.state === 'REMOVED' && ctx.principal.canOrg('org.delete', orgId)) return { deletedAt: row.changedAt };
    await orgForChange(work, orgId, 'org.delete');
    await refuseDefaultOrg(work, orgId, 'deleted');
    await refuseOrgOfSystemProject(work, orgId);
    await refuseLosingLastOwner(work, { orgId }, 'belongs to this organization, so it cannot be deleted');
    const deletedAt = new Date();
    const orgUsers = work.tx.select({ id: users.id }).from(users).where(eq(users.orgId, orgId));
    const orgProjects = work.tx.select({ id: projects.id }).from(projects).where(eq(projects.orgId, orgId));
    await markRemoved(
      work.tx,
      authorizations,
      or(
        eq(authorizations.orgId, orgId),
        inArray(authorizations.projectId, orgProjects),
        inArray(authorizations.userId, orgUsers),
      ),
      deletedAt,
    );
    const orgUserIds = await work.tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.orgId, orgId), ne(users.state, 'REMOVED')));
    const lostMemberships = await work.tx
      .delete(administrators)
      .where(
        or(
          and(eq(administrators.resourceType, 'ORG'), eq(administrators.resourceId, orgId)),
          and(eq(administrators.resourceType, 'PROJECT'), eq(administrators.resourceOwner, orgId)),
          inArray(administrators.userId, orgUsers),
        ),
      )
      .returning({ userId: administrators.userId });
    // Cached principals of removed users and of users who lost a membership must not outlive the commit.
    // Explicit: the lost memberships have no event of their own that the registry could act on.
    for (const userId of new Set([...orgUserIds.map((u) => u.id), ...lostMemberships.map((m) => m.userId)])) {
      await invalidatePrincipal(work, userId);
    }
    await markRemoved(
      work.tx,
      projectGrants,
      or(eq(projectGrants.orgId, orgId), eq(projectGrants.grantedOrgId, orgId)),
      deletedAt,
    );
    await markRemoved(work.tx, applications, eq(applications.orgId, orgId), deletedAt);
    await markRemoved(work.tx, projects, eq(projects.orgId, orgId), deletedAt);
    await removeUsersOfOrg(work, orgId);
    await work.tx.delete(orgDomains).where(eq(orgDomains.orgId, orgId));
    await work.tx.delete(orgMetadata).where(eq(orgMetadata.orgId, orgId));
    await work.tx.update(orgs).set({ state: 'REMOVED', changedAt: deletedAt }).where(eq(orgs.id, orgId));
    work.push({ aggregateType: 'org', aggregateId: orgId, type: 'org.removed', payload: {}, resourceOwner: orgId });
    return { deletedAt };
  });
}
