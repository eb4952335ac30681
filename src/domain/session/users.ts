import { and, eq, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instances, orgs, users } from '../../db/schema/index';

/** What the login needs of a user (the users table belongs to the user area; this reads it). */
export interface LoginUser {
  id: string;
  orgId: string;
  type: string;
  state: string;
  username: string;
  displayName: string | null;
  email: string | null;
  emailVerified: boolean;
  passwordHash: string | null;
  failedPasswordAttempts: number;
  /** set for imported users and a generated admin password: a new password before any sign-in completes */
  passwordChangeRequired: boolean;
  preferredLanguage: string | null;
  orgDomain: string;
}

const columns = {
  id: users.id,
  orgId: users.orgId,
  type: users.type,
  state: users.state,
  username: users.username,
  displayName: users.displayName,
  email: users.email,
  emailVerified: users.emailVerified,
  passwordHash: users.passwordHash,
  failedPasswordAttempts: users.failedPasswordAttempts,
  passwordChangeRequired: users.passwordChangeRequired,
  preferredLanguage: users.preferredLanguage,
  orgDomain: orgs.primaryDomain,
};

/**
 * A user by login name: the username itself, or `<username>@<primary domain of the user's org>`.
 * Removed users are never found.
 */
export async function findUserByLoginName(db: Db, loginName: string): Promise<LoginUser | undefined> {
  const name = loginName.trim().toLowerCase();
  if (!name) return undefined;
  const rows = await db
    .select(columns)
    .from(users)
    .innerJoin(orgs, eq(orgs.id, users.orgId))
    .where(
      and(
        ne(users.state, 'REMOVED'),
        or(eq(sql`lower(${users.username})`, name), eq(sql`lower(${users.username} || '@' || ${orgs.primaryDomain})`, name)),
      ),
    )
    .limit(2);
  return rows.find((r) => r.username.toLowerCase() === name) ?? rows[0];
}

export async function findUserById(db: Db, userId: string): Promise<LoginUser | undefined> {
  const [row] = await db.select(columns).from(users).innerJoin(orgs, eq(orgs.id, users.orgId)).where(eq(users.id, userId));
  return row;
}

export function loginNameOf(u: Pick<LoginUser, 'username' | 'orgDomain'>): string {
  return `${u.username}@${u.orgDomain}`;
}

/** Users that may sign in: active (and v1's initial users, who still have to finish onboarding). */
export function canSignIn(u: Pick<LoginUser, 'state' | 'type'>): boolean {
  return u.type === 'HUMAN' && (u.state === 'ACTIVE' || u.state === 'INITIAL');
}

/** The organization new users join when the request names none (the instance's default organization). */
export async function defaultOrgId(db: Db, instanceId: string): Promise<string> {
  const [row] = await db.select({ id: instances.defaultOrgId }).from(instances).where(eq(instances.id, instanceId));
  return row?.id ?? '';
}
