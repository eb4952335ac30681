import { instances } from '../../db/schema/index';
import { type DomainError, failedPrecondition } from '../errors';
import { readyFactors } from '../session/policy-gap';
import { type LoginPolicy, mfaForced } from './login-policy';
import { userLoginPolicy } from './user-login-policy';
import { factorOfRow, policyAllows, type RowFactor } from '../sign-in/factors';
import type { FACTORS } from '../sign-in/factors';
import type { Source } from '../context';

/** A factor about to be removed: one factor by id, or every factor of a type (`recovery_codes`: all codes). */
export type RemovedFactor = { id: string } | { type: (typeof FACTORS)[RowFactor]['row'] | 'recovery_codes' };

const counts = (policy: LoginPolicy, f: { type: string; passwordless: boolean }) => {
  const factor = factorOfRow(f.type);
  return !!factor && policyAllows(policy, factor, f.passwordless);
};

/**
 * "May this factor be removed": not the user's last second factor (or passkey) the policy accepts
 * while the policy the user is held to forces MFA; the user would otherwise sign in with one
 * factor until asked to set one up again. Recovery codes are a fallback, never the factor that
 * keeps MFA, so removing them is always allowed and they do not save the last factor. Call it in
 * the removing command's transaction (`work.tx`); it answers the FAILED_PRECONDITION to throw, or
 * undefined.
 */
export async function factorRemovalRefusal(
  src: Source,
  user: { id: string; orgId: string },
  factor: RemovedFactor,
): Promise<DomainError | undefined> {
  if ('type' in factor && factor.type === 'recovery_codes') return undefined;
  const { db } = src;
  const [instance] = await db.select({ id: instances.id }).from(instances).limit(1);
  const policy = await userLoginPolicy(src, instance?.id ?? '', user);
  if (!mfaForced(policy)) return undefined;
  const factors = (await readyFactors(db, user.id)).filter((f) => counts(policy, f));
  const removed = (f: { id: string; type: string }) => ('id' in factor ? f.id === factor.id : f.type === factor.type);
  if (factors.length === 0 || factors.some((f) => !removed(f))) return undefined;
  return failedPrecondition(
    'Errors.User.MFA.LastFactor',
    "the login policy forces MFA and this is the user's last second factor: add another one first",
  );
}
