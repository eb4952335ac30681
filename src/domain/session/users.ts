import { and, eq, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instances, orgs, users } from '../../db/schema/index';
import { getInstanceSettings } from '../instance/settings';

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
/**
 * The user a login name names: `<username>`, `<username>@<organization domain>`, or — when the
 * instance allows it (`loginWithEmailAllowed`, default on) — a verified email address that exactly
 * one user has. An ambiguous address names nobody (the user types the login name instead).
 */
export async function findUserByLoginName(db: Db, instanceId: string, loginName: string): Promise<LoginUser | undefined> {
  const name = loginName.trim().toLowerCase();
  if (!name) return undefined;
  const byName = await findByUsername(db, name);
  if (byName || !name.includes('@') || !(await getInstanceSettings(db, instanceId)).loginWithEmailAllowed) return byName;
  const byEmail = await db
    .select(columns)
    .from(users)
    .innerJoin(orgs, eq(orgs.id, users.orgId))
    .where(and(ne(users.state, 'REMOVED'), eq(users.type, 'HUMAN'), eq(users.emailVerified, true), eq(sql`lower(${users.email})`, name)))
    .limit(2);
  return byEmail.length === 1 ? byEmail[0] : undefined;
}

async function findByUsername(db: Db, name: string): Promise<LoginUser | undefined> {
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
