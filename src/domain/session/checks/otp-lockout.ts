import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { users } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { failedPrecondition, invalidArgument } from '../../errors';
import { execute, type UnitOfWork } from '../../execute';
import { instanceSettings } from '../../oidc/settings';
import type { Session } from '../sessions';
import { SIGN_IN_STATES } from '../may-sign-in';
import type { LoginUser } from '../users';
import type { LockoutName } from '../../sign-in/factors';

export type SecondFactorName = LockoutName;

/**
 * What the caller does in a check's transaction with the session the check updated: a sign-in step
 * answers the auth request there, so that both commit together. By default the session is the answer.
 */
export type AfterCheck<T> = (work: UnitOfWork, session: Session) => Promise<T>;
export const theSession: AfterCheck<Session> = async (_work, session) => session;

const lockedError = () => failedPrecondition('Errors.User.Locked', 'the user is locked');

/**
 * Runs one second-factor check (a TOTP, email, SMS or recovery code) under the lockout rule of
 * passwords, with its own counter (`failed_otp_attempts`, limit `lockoutMaxOtpAttempts`):
 * - a locked user gets the same `locked` answer for right and wrong codes, and nothing is checked;
 * - `attempt` runs in a transaction and uses the code up (atomically); when it was right, one UPDATE
 *   resets the counter only while the user may sign in and is under the limit, else everything rolls
 *   back and the answer is `locked` — so a right code never slips past a concurrent lock;
 * - a wrong code counts, and reaching the limit locks, in one UPDATE (concurrent failures are
 *   serialised by the row lock, exactly one of them locks).
 * `onSuccess` records the check in the same transaction, and `then` goes on from the session it wrote
 * there (its result is the answer). A wrong code is INVALID_ARGUMENT naming `field`.
 */
export async function checkSecondFactor<T>(
  ctx: Ctx,
  user: LoginUser,
  factor: SecondFactorName,
  field: string,
  attempt: (work: UnitOfWork) => Promise<boolean>,
  onSuccess: (work: UnitOfWork) => Promise<Session>,
  then: AfterCheck<T>,
): Promise<T> {
  if (user.state === 'LOCKED') throw lockedError();
  if (user.type !== 'HUMAN' || !SIGN_IN_STATES.includes(user.state))
    throw invalidArgument('Errors.User.MFA.Invalid', `${field}: the code is wrong`);
  const { lockoutMaxOtpAttempts: max } = await instanceSettings(ctx, ctx.instanceId);
  const outcome = await execute(ctx, async (work) => {
    if (!(await attempt(work))) return 'wrong' as const;
    const [still] = await work.tx
      .update(users)
      .set({ failedOtpAttempts: 0 })
      .where(
        and(
          eq(users.id, user.id),
          inArray(users.state, SIGN_IN_STATES),
          max > 0 ? lt(users.failedOtpAttempts, max) : undefined,
        ),
      )
      .returning({ id: users.id });
    if (!still) throw lockedError(); // rolls back the use of the code
    await work.load('user', user.id);
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.mfa.check.succeeded',
      payload: { factor },
      resourceOwner: user.orgId,
    });
    return { result: await then(work, await onSuccess(work)) };
  });
  if (outcome !== 'wrong') return outcome.result;
  const locked = await recordOtpFailure(ctx, user, factor, max);
  if (locked) throw lockedError();
  throw invalidArgument('Errors.User.MFA.Invalid', `${field}: the code is wrong or expired`);
}

/** Counts a wrong code and locks at the limit, in one statement; true when the user is now locked. */
async function recordOtpFailure(ctx: Ctx, user: LoginUser, factor: SecondFactorName, max: number) {
  const reachesLimit = sql`${users.failedOtpAttempts} + 1 >= ${max}`;
  return execute(ctx, async (work) => {
    const [row] = await work.tx
      .update(users)
      .set(
        max > 0
          ? {
              failedOtpAttempts: sql`${users.failedOtpAttempts} + 1`,
              state: sql`case when ${reachesLimit} then 'LOCKED' else ${users.state} end`,
              changedAt: sql`case when ${reachesLimit} then now() else ${users.changedAt} end`,
            }
          : { failedOtpAttempts: sql`${users.failedOtpAttempts} + 1` },
      )
      .where(and(eq(users.id, user.id), inArray(users.state, SIGN_IN_STATES)))
      .returning({ attempts: users.failedOtpAttempts, state: users.state });
    if (!row) return true; // locked (or deactivated) by a concurrent request
    await work.load('user', user.id);
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.mfa.check.failed',
      payload: { factor, attempts: row.attempts },
      resourceOwner: user.orgId,
    });
    if (row.state !== 'LOCKED') return false;
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.locked',
      payload: { reason: 'too many failed second-factor checks' },
      resourceOwner: user.orgId,
    });
    return true;
  });
}
