import { eq } from 'drizzle-orm';
import { membershipsOf } from '../administrator/memberships';
import type { Principal } from '../../authz/principal';
import type { Permission } from '../../authz/roles';
import type { Db } from '../../db/client';
import { orgs, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { notFound, permissionDenied } from '../errors';
import type { UnitOfWork } from '../execute';

export type UserRow = typeof users.$inferSelect;
export type UserWithOrg = UserRow & { primaryDomain: string };

export const userNotFound = () => notFound('Errors.User.NotFound', 'user not found');

/** A user's organization and the states the sign-in rules read (may-sign-in.ts): the user's and its organization's. */
export async function findUserStanding(
  db: Db,
  userId: string,
): Promise<{ orgId: string; state: string; orgState: string } | undefined> {
  const [row] = await db
    .select({ orgId: users.orgId, state: users.state, orgState: orgs.state })
    .from(users)
    .innerJoin(orgs, eq(orgs.id, users.orgId))
    .where(eq(users.id, userId));
  return row;
}

/** Reads one user with its organization's primary domain; removed users only when asked. */
export async function readUser(
  db: Db,
  userId: string,
  opts: { includeRemoved?: boolean } = {},
): Promise<UserWithOrg | undefined> {
  const [row] = await db
    .select({ user: users, primaryDomain: orgs.primaryDomain })
    .from(users)
    .innerJoin(orgs, eq(orgs.id, users.orgId))
    .where(eq(users.id, userId));
  if (!row) return undefined;
  if (row.user.state === 'REMOVED' && !opts.includeRemoved) return undefined;
  return { ...row.user, primaryDomain: row.primaryDomain };
}

/**
 * The permission rule of every user RPC: the caller holds `need` on the user's organization, or
 * `self` allows the user itself. A caller who cannot even read the user gets NOT_FOUND, so it never
 * learns that the user exists; one who can read but not change it gets PERMISSION_DENIED.
 */
export function authorize(ctx: Ctx, user: UserRow, need: Permission, opts: { self?: boolean } = {}): void {
  const p = ctx.principal;
  if (p.canOrg(need, user.orgId)) return;
  const isSelf = p.userId === user.id;
  if (opts.self && isSelf) return;
  if (isSelf || p.canOrg('user.read', user.orgId)) throw permissionDenied(`needs ${need} on the user's organization`);
  throw userNotFound();
}

/**
 * The rule that keeps higher-privileged accounts out of reach: changing another user's credentials,
 * state, addresses, metadata or memberships — or acting as that user — needs every permission that
 * user holds, on the same or a wider resource. Otherwise an ORG_USER_MANAGER could set the password
 * of an IAM_OWNER, or add a token to an instance administrator's machine user, and become one.
 * Self-service on one's own account is not a change of "another" user.
 */
export async function requireCovers(db: Db, caller: Principal, targetUserId: string): Promise<void> {
  if (caller.userId === targetUserId) return;
  if (!caller.covers(await membershipsOf(db, targetUserId))) {
    throw permissionDenied('the user holds permissions that the caller does not hold', 'Errors.User.Privileged');
  }
}

/**
 * Loads a user inside a command: registers the aggregate so that a concurrent change conflicts,
 * reads the row and checks the caller's permission, including that the caller covers the user's own
 * permissions (requireCovers).
 */
export async function userForChange(
  work: UnitOfWork,
  userId: string,
  need: Permission,
  opts: { self?: boolean; includeRemoved?: boolean } = {},
): Promise<UserWithOrg> {
  await work.load('user', userId);
  const user = await readUser(work.tx, userId, opts);
  if (!user) throw userNotFound();
  authorize(work.ctx, user, need, opts);
  await requireCovers(work.tx, work.ctx.principal, user.id);
  return user;
}
