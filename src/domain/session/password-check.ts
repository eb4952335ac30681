import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { hashPassword, needsRehash, verifyPassword } from '../../crypto/passwords/index';
import { users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { execute, type UnitOfWork } from '../execute';
import { instanceSettings } from '../oidc/settings';
import { maySignIn, PASSWORD_SIGN_IN, SIGN_IN_STATES } from './may-sign-in';
import type { LoginUser } from './users';

export type PasswordCheckResult<T = undefined> =
  | { ok: true; user: LoginUser; followUp: T }
  | { ok: false; reason: 'invalid' | 'locked' };

// Verified for unknown users so that "no such user" costs as much as "wrong password".
let dummyHash: Promise<string> | undefined;
const dummy = () => (dummyHash ??= hashPassword('portcullis-dummy-password-for-timing'));

/**
 * Checks a password under the lockout policy. Unknown users, users without a password and inactive
 * users fail like a wrong password (same message, a real hash verification). A wrong password counts
 * as a failed attempt (event `user.human.password.check.failed`); reaching the instance's limit locks
 * the user (`user.locked`) until an administrator unlocks them. On a locked user no password is
 * checked at all: right and wrong passwords get the same `locked` answer, so a locked account is no
 * oracle. Counting and locking are one atomic UPDATE, and a success commits only while the user is
 * still unlocked and under the limit, so concurrent guesses (on any number of workers) can neither
 * exceed the limit nor slip a correct guess past it. After a success an imported or weaker hash is
 * replaced by argon2id (`user.human.password.hash.updated`). `followUp` runs in the
 * success's transaction with the signed-in user, so that what a sign-in starts (a session) commits
 * with it or not at all; its result comes back as `followUp`.
 */
export async function checkPassword<T = undefined>(
  ctx: Ctx,
  user: LoginUser | undefined,
  password: string,
  followUp?: (work: UnitOfWork, user: LoginUser) => Promise<T>,
): Promise<PasswordCheckResult<T>> {
  if (!user?.passwordHash || user.type !== 'HUMAN' || user.state === 'REMOVED') {
    await verifyPassword(await dummy(), password);
    return { ok: false, reason: 'invalid' };
  }
  if (user.state === 'LOCKED') {
    await verifyPassword(await dummy(), password);
    return { ok: false, reason: 'locked' };
  }
  const valid = await verifyPassword(user.passwordHash, password);
  if (!maySignIn(user, PASSWORD_SIGN_IN)) return { ok: false, reason: 'invalid' };
  const { lockoutMaxPasswordAttempts: max } = await instanceSettings(ctx, ctx.instanceId);
  if (!valid) {
    await recordFailure(ctx, user, max);
    return { ok: false, reason: 'invalid' };
  }
  const rehash = needsRehash(user.passwordHash) ? await hashPassword(password) : undefined;
  const stored = user.passwordHash;
  const outcome = await execute(ctx, async (work) => {
    // The row lock of this UPDATE orders it after any concurrent failure: a user locked meanwhile,
    // or at the limit, does not sign in.
    const [still] = await work.tx
      .update(users)
      .set({ failedPasswordAttempts: 0 })
      .where(
        and(
          eq(users.id, user.id),
          inArray(users.state, SIGN_IN_STATES),
          max > 0 ? lt(users.failedPasswordAttempts, max) : undefined,
        ),
      )
      .returning({ id: users.id });
    if (!still) return 'locked' as const;
    await work.load('user', user.id);
    // Only the hash that was verified is replaced: a password changed meanwhile stays as it is.
    const [updated] = rehash
      ? await work.tx
          .update(users)
          .set({ passwordHash: rehash })
          .where(and(eq(users.id, user.id), eq(users.passwordHash, stored)))
          .returning({ id: users.id })
      : [];
    if (updated) {
      work.push({
        aggregateType: 'user',
        aggregateId: user.id,
        type: 'user.human.password.hash.updated',
        // Scheme names only: hash material stays out of the event log.
        payload: {
          previousScheme: hashScheme(stored),
          scheme: 'argon2id',
          reason: 'rehashed after a successful login',
        },
        resourceOwner: user.orgId,
      });
    }
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.password.check.succeeded',
      resourceOwner: user.orgId,
    });
    const signedIn = { ...user, passwordHash: updated ? rehash! : stored, failedPasswordAttempts: 0 };
    return { user: signedIn, followUp: (followUp ? await followUp(work, signedIn) : undefined) as T };
  });
  if (outcome === 'locked') return { ok: false, reason: 'locked' };
  return { ok: true, ...outcome };
}

const SCHEME_NAMES: Record<string, string> = {
  '1': 'md5-crypt',
  '2a': 'bcrypt',
  '2b': 'bcrypt',
  '2x': 'bcrypt',
  '2y': 'bcrypt',
  '5': 'sha256-crypt',
  '6': 'sha512-crypt',
  pbkdf2: 'pbkdf2-sha1',
};

/** The name of a stored hash's scheme (its modular-crypt identifier, spelled out for the short ones). */
export function hashScheme(stored: string): string {
  const id = /^\$([a-z0-9-]+)\$/i.exec(stored)?.[1] ?? 'unknown';
  return SCHEME_NAMES[id] ?? id;
}

/**
 * One statement counts the failure and, at the limit, locks: PostgreSQL's row lock serialises
 * concurrent failures, so the count never passes the limit and exactly one of them locks. The
 * aggregate is loaded after the lock is held, so concurrent failures do not conflict.
 */
async function recordFailure(ctx: Ctx, user: LoginUser, max: number): Promise<void> {
  const reachesLimit = sql`${users.failedPasswordAttempts} + 1 >= ${max}`;
  await execute(ctx, async (work) => {
    const [row] = await work.tx
      .update(users)
      .set(
        max > 0
          ? {
              failedPasswordAttempts: sql`${users.failedPasswordAttempts} + 1`,
              state: sql`case when ${reachesLimit} then 'LOCKED' else ${users.state} end`,
              changedAt: sql`case when ${reachesLimit} then now() else ${users.changedAt} end`,
            }
          : { failedPasswordAttempts: sql`${users.failedPasswordAttempts} + 1` },
      )
      .where(and(eq(users.id, user.id), inArray(users.state, SIGN_IN_STATES)))
      .returning({ attempts: users.failedPasswordAttempts, state: users.state });
    if (!row) return; // locked (or deactivated) by a concurrent request: nothing more to count
    await work.load('user', user.id);
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.password.check.failed',
      payload: { attempts: row.attempts },
      resourceOwner: user.orgId,
    });
    if (row.state === 'LOCKED') {
      work.push({
        aggregateType: 'user',
        aggregateId: user.id,
        type: 'user.locked',
        payload: { reason: 'too many failed password checks' },
        resourceOwner: user.orgId,
      });
    }
  });
}
