import { and, eq } from 'drizzle-orm';
import { userFactors } from '../../../db/schema/index';
import { failedPrecondition } from '../../errors';
import { factorRemovalRefusal } from '../../policy/factor-removal';
import type { UnitOfWork } from '../../execute';
import type { FACTORS, RowFactor } from '../../sign-in/factors';
import { type UserWithOrg, userForChange } from '../access';

/** The factors a user has at most one of (a WebAuthn user may register several). */
export type FactorType = (typeof FACTORS)[Exclude<RowFactor, 'webAuthN'>]['row'];

/**
 * The user whose factors a command changes: the user itself, or an administrator with `user.write`
 * on the user's organization who covers the user's own permissions (nobody else; others get
 * NOT_FOUND or PERMISSION_DENIED as every user RPC answers). Only human users have second factors.
 */
export async function userForFactorChange(work: UnitOfWork, userId: string): Promise<UserWithOrg> {
  const user = await userForChange(work, userId, 'user.write', { self: true });
  if (user.type !== 'HUMAN') throw failedPrecondition('Errors.User.NotHuman', 'only human users have second factors');
  return user;
}

/** The user's factor of one kind (there is at most one TOTP, one email and one SMS factor). */
export async function factorOf(work: UnitOfWork, userId: string, type: FactorType) {
  const [row] = await work.tx
    .select()
    .from(userFactors)
    .where(and(eq(userFactors.userId, userId), eq(userFactors.type, type)));
  return row;
}

/**
 * Where the login policy's "may this factor be removed" rule is asked (refused when the policy forces
 * MFA and this is the user's last second factor): src/domain/policy/factor-removal.ts.
 */
export async function requireFactorRemovable(
  work: UnitOfWork,
  user: UserWithOrg,
  factor: FactorType | 'recovery_codes',
): Promise<void> {
  const refusal = await factorRemovalRefusal({ db: work.tx, runtime: work.ctx.runtime }, user, { type: factor });
  if (refusal) throw refusal;
}
