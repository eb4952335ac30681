import { and, eq, sql } from 'drizzle-orm';
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
  const stored = user.passwordHash;
  const replaced = await execute(ctx, async (scope) => {
    await scope.load('user', user.id);
    if (user.failedPasswordAttempts > 0) await scope.tx.update(users).set({ failedPasswordAttempts: 0 }).where(eq(users.id, user.id));
    // Only the hash that was verified is replaced: a password changed meanwhile stays as it is.
    const [updated] = rehash
      ? await scope.tx
          .update(users)
          .set({ passwordHash: rehash })
          .where(and(eq(users.id, user.id), eq(users.passwordHash, stored)))
          .returning({ id: users.id })
      : [];
    if (updated) {
      scope.push({
        aggregateType: 'user',
        aggregateId: user.id,
        type: 'user.human.password.hash.updated',
        // Scheme names only: hash material stays out of the event log.
        payload: { previousScheme: hashScheme(stored), scheme: 'argon2id', reason: 'rehashed after a successful login' },
        resourceOwner: user.orgId,
      });
    }
    scope.push({ aggregateType: 'user', aggregateId: user.id, type: 'user.human.password.check.succeeded', resourceOwner: user.orgId });
    return !!updated;
  });
  return { ok: true, user: { ...user, passwordHash: replaced ? rehash! : stored, failedPasswordAttempts: 0 } };
}

const SCHEME_NAMES: Record<string, string> = { '1': 'md5-crypt', '2a': 'bcrypt', '2b': 'bcrypt', '2x': 'bcrypt', '2y': 'bcrypt', '5': 'sha256-crypt', '6': 'sha512-crypt', pbkdf2: 'pbkdf2-sha1' };

/** The name of a stored hash's scheme (its modular-crypt identifier, spelled out for the short ones). */
export function hashScheme(stored: string): string {
  const id = /^\$([a-z0-9-]+)\$/i.exec(stored)?.[1] ?? 'unknown';
  return SCHEME_NAMES[id] ?? id;
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
