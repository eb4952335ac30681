import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { administrators } from '../../db/schema/index';
import { getDefaultLoginPolicy, getOrgLoginPolicy, type LoginPolicy } from './login-policy';
import { stricterPolicy, withInstanceFloor } from './stricter-policy';
import type { Source } from '../context';
import type { Runtime } from '../../deps';

/**
 * Where the policies come from: the caches by default; a sign-in that finishes reads them in its
 * transaction instead, with the rows locked (src/domain/sign-in/finish.ts).
 */
export interface PolicyReader {
  instance(db: Db, instanceId: string): Promise<LoginPolicy>;
  org(db: Db, orgId: string): Promise<LoginPolicy | null>;
}
/** The caches of the server `runtime` belongs to. */
const cached = (runtime: Runtime): PolicyReader => ({
  instance: (db, instanceId) => getDefaultLoginPolicy({ db, runtime }, instanceId),
  org: (db, orgId) => getOrgLoginPolicy({ db, runtime }, orgId),
});

/** The policy users of `orgId` are held to: its own under the instance's floor, or the instance's. */
async function orgPolicy(db: Db, instance: LoginPolicy, orgId: string, read: PolicyReader): Promise<LoginPolicy> {
  const own = await read.org(db, orgId);
  return own ? withInstanceFloor(instance, own) : instance;
}

/**
 * Where the user's memberships reach beyond their own organization: whether any is on the instance,
 * and the other organizations that own a resource the user administers.
 */
async function reachBeyondOwnOrg(db: Db, user: { id: string; orgId: string }) {
  const rows = await db
    .select({ type: administrators.resourceType, owner: administrators.resourceOwner })
    .from(administrators)
    .where(eq(administrators.userId, user.id));
  const instance = rows.some((r) => r.type === 'INSTANCE');
  const orgs = new Set(rows.filter((r) => r.type !== 'INSTANCE' && r.owner !== user.orgId).map((r) => r.owner));
  return { beyond: instance || orgs.size > 0, orgs: [...orgs] };
}

/**
 * The login policy a user's sign-ins are held to (src/domain/policy/stricter-policy.ts): their
 * organization's under the instance's floor; for a user who also administers the instance or other
 * organizations, the stricter of that, the instance's and each of those organizations' policies.
 * Every decision about what a signed-in user must still do reads the policy here.
 */
export async function userLoginPolicy(
  { db, runtime }: Source,
  instanceId: string,
  user: { id: string; orgId: string },
  read: PolicyReader = cached(runtime),
): Promise<LoginPolicy> {
  const [instance, reach] = await Promise.all([read.instance(db, instanceId), reachBeyondOwnOrg(db, user)]);
  let policy = await orgPolicy(db, instance, user.orgId, read);
  if (!reach.beyond) return policy;
  policy = stricterPolicy(policy, instance);
  for (const orgId of reach.orgs) policy = stricterPolicy(policy, await orgPolicy(db, instance, orgId, read));
  return policy;
}
