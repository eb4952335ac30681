import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instances, orgs, users } from '../../db/schema/index';
import { getInstanceSettings } from '../instance/settings';
import { isLoginName, isLoginNameOrUsername } from '../user/login-names';
import type { Source } from '../context';

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
  /** when the user last skipped setting up a second factor (the login policy's gap reads it) */
  mfaInitSkippedAt: Date | null;
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
  mfaInitSkippedAt: users.mfaInitSkippedAt,
  orgDomain: orgs.primaryDomain,
};

/**
 * The user a login name names, in this order:
 * 1. a login name (`<username>@<organization domain>`, or a username unique in the instance) —
 *    never ambiguous;
 * 2. a bare username that exactly one user has (or one user of `orgId`, the organization the
 *    sign-in is for, e.g. from the `urn:service:iam:org:id:` scope) — two organizations' `alice`
 *    name nobody, and the user types the full login name;
 * 3. when the user's organization allows it (`loginWithEmailAllowed`, its own or the instance's;
 *    default on), a verified email address that exactly one user has.
 * Removed users are never found.
 */
export async function findUserByLoginName(
  src: Source,
  instanceId: string,
  loginName: string,
  orgId?: string,
): Promise<LoginUser | undefined> {
  const { db } = src;
  const name = loginName.trim().toLowerCase();
  if (!name || name.length > 400) return undefined;
  const inOrg = orgId ? eq(users.orgId, orgId) : undefined;
  const exact = sql<boolean>`${isLoginName(name)}`;
  const rows = await db
    .select({ ...columns, exact })
    .from(users)
    .innerJoin(orgs, eq(orgs.id, users.orgId))
    .where(and(ne(users.state, 'REMOVED'), inOrg, isLoginNameOrUsername(name)))
    .orderBy(desc(exact))
    .limit(2);
  if (rows[0]?.exact || rows.length === 1) return withoutFlag(rows[0]);
  if (!name.includes('@')) return undefined;
  const byEmail = await db
    .select({ ...columns, emailLogin: orgs.loginWithEmailAllowed })
    .from(users)
    .innerJoin(orgs, eq(orgs.id, users.orgId))
    .where(
      and(
        ne(users.state, 'REMOVED'),
        inOrg,
        eq(users.type, 'HUMAN'),
        eq(users.emailVerified, true),
        eq(sql`lower(${users.email})`, name),
      ),
    )
    .limit(2);
  if (byEmail.length !== 1) return undefined;
  const { emailLogin, ...user } = byEmail[0];
  return (emailLogin ?? (await getInstanceSettings(src, instanceId)).loginWithEmailAllowed) ? user : undefined;
}

function withoutFlag({ exact: _, ...user }: LoginUser & { exact: boolean }): LoginUser {
  return user;
}

export async function findUserById(db: Db, userId: string): Promise<LoginUser | undefined> {
  const [row] = await db
    .select(columns)
    .from(users)
    .innerJoin(orgs, eq(orgs.id, users.orgId))
    .where(eq(users.id, userId));
  return row;
}

export function loginNameOf(u: Pick<LoginUser, 'username' | 'orgDomain'>): string {
  return `${u.username}@${u.orgDomain}`;
}

/** The organization new users join when the request names none (the instance's default organization). */
export async function defaultOrgId(db: Db, instanceId: string): Promise<string> {
  const [row] = await db.select({ id: instances.defaultOrgId }).from(instances).where(eq(instances.id, instanceId));
  return row?.id ?? '';
}
