import { eq, sql } from 'drizzle-orm';
import { instances, orgs, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { failedPrecondition, notFound } from '../errors';
import { execute } from '../execute';
import { lockInstance } from '../instance/lock';
import { requireInstancePermission } from '../instance/permission';
import { requireId } from '../instance/validate';
import { orgFor, orgForChange } from '../org/access';
import {
  checkLoginPolicy,
  type EffectiveLoginPolicy,
  effectiveLoginPolicy,
  INSTANCE_SETTINGS_KEY,
  type LoginPolicy,
} from './login-policy';
import { userLoginPolicy } from './user-login-policy';

/**
 * GetLoginSettings: the policy set for the instance (no organization named) or for an organization,
 * and whether it is inherited (sign-ins are held to it under the instance's floor: `userLoginPolicy`).
 * Instance: `iam.read`; an organization: `org.read` on it.
 */
export async function getLoginSettings(ctx: Ctx, input: { orgId?: string }): Promise<EffectiveLoginPolicy> {
  if (!input.orgId) {
    requireInstancePermission(ctx.principal, 'iam.read');
    return effectiveLoginPolicy(ctx, ctx.instanceId);
  }
  await orgFor(ctx.db, ctx.principal, input.orgId, 'org.read');
  return effectiveLoginPolicy(ctx, ctx.instanceId, input.orgId);
}

/** SetDefaultLoginSettings: the instance's whole login policy. Needs `iam.policy.write` (IAM_OWNER). */
export async function setDefaultLoginSettings(ctx: Ctx, policy: LoginPolicy): Promise<{ changedAt: Date }> {
  requireInstancePermission(ctx.principal, 'iam.policy.write');
  checkLoginPolicy(policy);
  return execute(ctx, async (work) => {
    await lockInstance(work);
    const path = `{${INSTANCE_SETTINGS_KEY}}`;
    const changedAt = new Date();
    await work.tx
      .update(instances)
      .set({
        settings: sql`jsonb_set(${instances.settings}, ${path}::text[], ${JSON.stringify(policy)}::jsonb)`,
        changedAt,
      })
      .where(eq(instances.id, ctx.instanceId));
    work.push({
      aggregateType: 'instance',
      aggregateId: ctx.instanceId,
      type: 'instance.login_policy.set',
      payload: policy,
      resourceOwner: ctx.instanceId,
    });
    return { changedAt };
  });
}

/** SetOrganizationLoginSettings: the organization's own whole policy. Needs `org.write` on it. */
export async function setOrganizationLoginSettings(
  ctx: Ctx,
  input: { orgId: string; policy: LoginPolicy },
): Promise<{ changedAt: Date }> {
  const orgId = requireId('organization_id', input.orgId);
  checkLoginPolicy(input.policy);
  return execute(ctx, async (work) => {
    await orgForChange(work, orgId, 'org.write');
    const changedAt = new Date();
    await work.tx
      .update(orgs)
      .set({ loginPolicy: { ...input.policy }, changedAt })
      .where(eq(orgs.id, orgId));
    work.push({
      aggregateType: 'org',
      aggregateId: orgId,
      type: 'org.login_policy.factors.set',
      payload: input.policy,
      resourceOwner: orgId,
    });
    return { changedAt };
  });
}

/** ResetOrganizationLoginSettings: the organization inherits the instance's policy again. Needs `org.write`. */
export async function resetOrganizationLoginSettings(ctx: Ctx, input: { orgId: string }): Promise<{ changedAt: Date }> {
  const orgId = requireId('organization_id', input.orgId);
  return execute(ctx, async (work) => {
    const org = await orgForChange(work, orgId, 'org.write');
    if (org.loginPolicy === null)
      throw failedPrecondition('Errors.Org.LoginPolicy.NotSet', 'the organization has no login policy of its own');
    const changedAt = new Date();
    await work.tx.update(orgs).set({ loginPolicy: null, changedAt }).where(eq(orgs.id, orgId));
    work.push({
      aggregateType: 'org',
      aggregateId: orgId,
      type: 'org.login_policy.factors.reset',
      payload: {},
      resourceOwner: orgId,
    });
    return { changedAt };
  });
}

/**
 * The user chose "set up later" in the hosted login: for `mfaInitSkipLifetimeSeconds` the login does
 * not ask again. Refused when the policy does not allow skipping. The login acts as the user.
 */
export async function skipMfaInit(ctx: Ctx, userId: string): Promise<void> {
  await execute(ctx, async (work) => {
    const [user] = await work.tx
      .select({ id: users.id, orgId: users.orgId })
      .from(users)
      .where(eq(users.id, userId))
      .for('update');
    if (!user) throw notFound('Errors.User.NotFound', 'user not found');
    await work.load('user', userId);
    const policy = await userLoginPolicy({ db: work.tx, runtime: ctx.runtime }, ctx.instanceId, user);
    if (policy.mfaInitSkipLifetimeSeconds === 0)
      throw failedPrecondition('Errors.LoginPolicy.MfaInitSkip', 'the login policy does not allow skipping the set-up');
    await work.tx.update(users).set({ mfaInitSkippedAt: new Date() }).where(eq(users.id, userId));
    work.push({
      aggregateType: 'user',
      aggregateId: userId,
      type: 'user.human.mfa.init.skipped',
      payload: {},
      resourceOwner: user.orgId,
    });
  });
}
