import { eq, sql } from 'drizzle-orm';
import { hashPassword, needsRehash, verifyPassword } from '../../crypto/passwords/index';
import { users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { execute } from '../execute';
import { instanceSettings } from '../oidc/settings';
import { canSignIn, type LoginUser } from './users';

export type PasswordCheckResult = { ok: true; user: LoginUser } | { ok: false; reason: 'invalid' | 'locked' };

// Verified for unknown users so that "no such user" costs as much as "wrong password".
let dummyHash: Promise<string> | undefined;
const dummy = () => (dummyHash ??= hashPassword('portcullis-dummy-password-for-timing'));

/**
 * Checks a password under the lockout policy. Unknown users, users without a password and inactive
 * users fail like a wrong password (same message, a real hash verification). A wrong password counts
 * as a failed attempt (event `user.human.password.check.failed`); reaching the instance's limit locks
 * the user (`user.locked`) until an administrator unlocks them. A correct password for a locked user
 * answers `locked` (the caller proved knowledge of the password, so nothing is enumerated). After a
 * success an imported or weaker hash is replaced by argon2id (`user.human.password.hash.updated`).
 */
export async function checkPassword(ctx: Ctx, user: LoginUser | undefined, password: string): Promise<PasswordCheckResult> {
  if (!user?.passwordHash || user.type !== 'HUMAN' || user.state === 'REMOVED') {
    await verifyPassword(await dummy(), password);
    return { ok: false, reason: 'invalid' };
  }
  const valid = await verifyPassword(user.passwordHash, password);
  if (user.state === 'LOCKED') return { ok: false, reason: valid ? 'locked' : 'invalid' };
  if (!canSignIn(user)) return { ok: false, reason: 'invalid' };
  if (!valid) {
    await recordFailure(ctx, user);
    return { ok: false, reason: 'invalid' };
  }
  const rehash = needsRehash(user.passwordHash) ? await hashPassword(password) : undefined;
  await execute(ctx, async (scope) => {
    await scope.load('user', user.id);
    const set: Partial<typeof users.$inferInsert> = {};
    if (user.failedPasswordAttempts > 0) set.failedPasswordAttempts = 0;
    if (rehash) {
      set.passwordHash = rehash;
      scope.push({
        aggregateType: 'user',
        aggregateId: user.id,
        type: 'user.human.password.hash.updated',
        payload: { reason: 'rehashed with argon2id after login', encodedHash: rehash },
        resourceOwner: user.orgId,
      });
    }
    if (Object.keys(set).length) await scope.tx.update(users).set(set).where(eq(users.id, user.id));
    scope.push({ aggregateType: 'user', aggregateId: user.id, type: 'user.human.password.check.succeeded', resourceOwner: user.orgId });
  });
  return { ok: true, user: { ...user, passwordHash: rehash ?? user.passwordHash, failedPasswordAttempts: 0 } };
}

async function recordFailure(ctx: Ctx, user: LoginUser): Promise<void> {
  const { lockoutMaxPasswordAttempts: max } = await instanceSettings(ctx.db, ctx.instanceId);
  await execute(ctx, async (scope) => {
    await scope.load('user', user.id);
    const [row] = await scope.tx
      .update(users)
      .set({ failedPasswordAttempts: sql`${users.failedPasswordAttempts} + 1` })
      .where(eq(users.id, user.id))
      .returning({ attempts: users.failedPasswordAttempts, state: users.state });
    scope.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.password.check.failed',
      payload: { attempts: row.attempts },
      resourceOwner: user.orgId,
    });
    if (max > 0 && row.attempts >= max && row.state === 'ACTIVE') {
      await scope.tx.update(users).set({ state: 'LOCKED', changedAt: new Date() }).where(eq(users.id, user.id));
      scope.push({ aggregateType: 'user', aggregateId: user.id, type: 'user.locked', payload: { reason: 'too many failed password checks' }, resourceOwner: user.orgId });
    }
  });
}
