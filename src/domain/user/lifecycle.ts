import { and, eq, ne } from 'drizzle-orm';
import { invalidatePat } from '../../authz/authenticate';
import {
  idpLinks,
  personalAccessTokens,
  recoveryCodes,
  userCodes,
  userFactors,
  userKeys,
  users,
} from '../../db/schema/index';
import type { Ctx } from '../context';
import { failedPrecondition } from '../errors';
import { execute, type UnitOfWork } from '../execute';
import { refuseLosingLastOwner } from '../instance/last-owner';
import { userForChange } from './access';
import { checkId } from './validate';

// A user's life after creation: state transitions (deactivate, reactivate, lock, unlock) and removal,
// with the credentials and caches that go with it.

interface StateChange {
  from: string[];
  to: string;
  event: 'user.deactivated' | 'user.reactivated' | 'user.locked' | 'user.unlocked';
  wrongState: string;
}

const STATE_CHANGES = {
  deactivate: {
    from: ['ACTIVE', 'LOCKED', 'INITIAL'],
    to: 'INACTIVE',
    event: 'user.deactivated',
    wrongState: 'the user is already inactive',
  },
  reactivate: { from: ['INACTIVE'], to: 'ACTIVE', event: 'user.reactivated', wrongState: 'the user is not inactive' },
  lock: {
    from: ['ACTIVE', 'INITIAL'],
    to: 'LOCKED',
    event: 'user.locked',
    wrongState: 'only an active user can be locked',
  },
  unlock: { from: ['LOCKED'], to: 'ACTIVE', event: 'user.unlocked', wrongState: 'the user is not locked' },
} satisfies Record<string, StateChange>;

/** DeactivateUser, ReactivateUser, LockUser, UnlockUser: one transition each, FAILED_PRECONDITION otherwise. */
export async function changeUserState(ctx: Ctx, userId: string, change: keyof typeof STATE_CHANGES): Promise<Date> {
  const id = checkId('user_id', userId);
  const t: StateChange = STATE_CHANGES[change];
  return execute(ctx, async (work) => {
    const user = await userForChange(work, id, 'user.write');
    if (!t.from.includes(user.state)) throw failedPrecondition('Errors.User.State.Invalid', t.wrongState);
    if (t.to !== 'ACTIVE') await refuseLosingLastOwner(work, { userIds: [id] }, `cannot be ${t.to.toLowerCase()}`);
    const now = new Date();
    await work.tx
      .update(users)
      .set({
        state: t.to,
        changedAt: now,
        ...(change === 'unlock' ? { failedPasswordAttempts: 0, failedOtpAttempts: 0 } : {}),
      })
      .where(eq(users.id, id));
    work.push({ aggregateType: 'user', aggregateId: id, type: t.event, payload: {}, resourceOwner: user.orgId });
    return now;
  });
}

/** DeleteUser: state REMOVED, credentials gone, username free. Deleting again succeeds. */
export async function deleteUser(ctx: Ctx, userId: string): Promise<Date> {
  const id = checkId('user_id', userId);
  return execute(ctx, async (work) => {
    const user = await userForChange(work, id, 'user.delete', { includeRemoved: true });
    if (user.state === 'REMOVED') return user.changedAt;
    await refuseLosingLastOwner(work, { userIds: [id] }, 'cannot be deleted');
    return removeUserRows(work, user);
  });
}

async function removeUserRows(work: UnitOfWork, user: { id: string; orgId: string; username: string }): Promise<Date> {
  const now = new Date();
  await work.tx
    .update(users)
    .set({ state: 'REMOVED', secretHash: null, otpSecret: null, changedAt: now })
    .where(eq(users.id, user.id));
  const pats = await work.tx
    .delete(personalAccessTokens)
    .where(eq(personalAccessTokens.userId, user.id))
    .returning({ tokenHash: personalAccessTokens.tokenHash });
  // Explicit: the tokens' hashes (the cache keys) are not in the event; user.removed evicts the rest.
  for (const p of pats) await invalidatePat(work, p.tokenHash);
  await work.tx.delete(userKeys).where(eq(userKeys.userId, user.id));
  await work.tx.delete(userCodes).where(eq(userCodes.userId, user.id));
  // Second factors and their secrets go with the user (user.removed says so for all of them).
  await work.tx.delete(userFactors).where(eq(userFactors.userId, user.id));
  await work.tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
  // So do the links to upstream accounts: the next sign-in there must not find a deleted user.
  await work.tx.delete(idpLinks).where(eq(idpLinks.userId, user.id));
  work.push({
    aggregateType: 'user',
    aggregateId: user.id,
    type: 'user.removed',
    payload: { userName: user.username },
    resourceOwner: user.orgId,
  });
  return now;
}

/**
 * For the organization commands: removes every user of an organization that is being deleted, in
 * the caller's transaction (one user.removed event each).
 */
export async function removeUsersOfOrg(work: UnitOfWork, orgId: string): Promise<number> {
  const rows = await work.tx
    .select({ id: users.id, orgId: users.orgId, username: users.username })
    .from(users)
    .where(and(eq(users.orgId, orgId), ne(users.state, 'REMOVED')));
  for (const u of rows) {
    await work.load('user', u.id);
    await removeUserRows(work, u);
  }
  return rows.length;
}
