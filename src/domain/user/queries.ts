import { MACHINE_SIGN_IN, maySignIn } from '../session/may-sign-in';
import { type SQL, and, asc, count, eq, inArray, ne, not, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { verifyPassword } from '../../crypto/passwords/index';
import type { Db } from '../../db/client';
import { orgDomains, orgs, personalAccessTokens, userKeys, userMetadata, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { invalidArgument } from '../errors';
import { type ListResult, type PageRequest, listResult, ordered, page } from '../list/page';
import { type TextFilter, checkTextFilterLength, textCondition } from '../list/text-filter';
import { authorize, readUser, type UserWithOrg, userNotFound } from './access';
import { countedTotal } from './counts';
import { isLoginName, loginNamesOf } from './login-names';
import { checkId } from './validate';
import { metadataValueBytes } from '../metadata-value';

/**
 * Reads of users. The v2 handlers call the permission-checked functions (getUserById, listUsers, …);
 * the OIDC provider and the hosted login call the lookups below them
 * checkUserPassword, findMachineKey, …), which check no caller because the protocol is the check.
 */

export type { UserWithOrg } from './access';
export interface UserView extends UserWithOrg {
  /** `<username>@<domain>` for every verified domain of the organization, the primary one first */
  loginNames: string[];
  preferredLoginName: string;
}

async function withLoginNames(db: Db, rows: UserWithOrg[]): Promise<UserView[]> {
  if (!rows.length) return [];
  const orgIds = [...new Set(rows.map((r) => r.orgId))];
  const domains = await db
    .select({ orgId: orgDomains.orgId, domain: orgDomains.domain, isPrimary: orgDomains.isPrimary })
    .from(orgDomains)
    .where(and(inArray(orgDomains.orgId, orgIds), eq(orgDomains.isVerified, true)));
  const byOrg = new Map<string, string[]>();
  for (const d of domains.sort(
    (a, b) => Number(b.isPrimary) - Number(a.isPrimary) || a.domain.localeCompare(b.domain),
  )) {
    byOrg.set(d.orgId, [...(byOrg.get(d.orgId) ?? []), d.domain]);
  }
  return rows.map((r) => toView(r, byOrg.get(r.orgId)));
}

function toView(r: UserWithOrg, domains: string[] | undefined): UserView {
  return { ...r, preferredLoginName: `${r.username}@${r.primaryDomain}`, loginNames: loginNamesOf(r, domains) };
}

/** GetUserByID: the caller needs `user.read` on the user's organization, or is the user. */
export async function getUserById(ctx: Ctx, userId: string): Promise<UserView> {
  const id = checkId('user_id', userId);
  const user = await readUser(ctx.db, id);
  if (!user) throw userNotFound();
  authorize(ctx, user, 'user.read', { self: true });
  return (await withLoginNames(ctx.db, [user]))[0];
}

export type UserFilter =
  | { username: TextFilter }
  | { loginName: string }
  | { email: TextFilter }
  | { displayName: TextFilter }
  | { state: 'ACTIVE' | 'INACTIVE' | 'LOCKED' | 'REMOVED' | 'INITIAL' }
  | { type: 'HUMAN' | 'MACHINE' }
  | { orgId: string }
  | { userIds: string[] }
  | { and: UserFilter[] }
  | { or: UserFilter[] }
  | { not: UserFilter };

function textFilter(field: string, column: AnyPgColumn, f: TextFilter): SQL {
  checkTextFilterLength(field, f.value);
  return textCondition(column, f.value, f.method);
}

function filterCondition(f: UserFilter, depth: number): SQL {
  if (depth > 8) throw invalidArgument('Errors.Query.Invalid', 'filters are nested too deeply (at most 8 levels)');
  if ('username' in f) return textFilter('username_filter', users.username, f.username);
  if ('loginName' in f) return isLoginName(f.loginName);
  if ('email' in f) return textFilter('email_filter', users.email, f.email);
  if ('displayName' in f) return textFilter('display_name_filter', users.displayName, f.displayName);
  if ('state' in f) return eq(users.state, f.state);
  if ('type' in f) return eq(users.type, f.type);
  if ('orgId' in f) return eq(users.orgId, f.orgId);
  if ('userIds' in f) {
    if (f.userIds.length > 1000)
      throw invalidArgument('Errors.Query.Invalid', 'in_user_ids_filter.user_ids may hold at most 1000 ids');
    return f.userIds.length ? inArray(users.id, f.userIds) : sql`false`;
  }
  if ('and' in f) return f.and.length ? and(...f.and.map((x) => filterCondition(x, depth + 1)))! : sql`true`;
  if ('or' in f) return f.or.length ? or(...f.or.map((x) => filterCondition(x, depth + 1)))! : sql`false`;
  if ('not' in f) return not(filterCondition(f.not, depth + 1));
  throw invalidArgument('Errors.Query.Invalid', 'filters: a filter is empty');
}

/** What the caller may read, as SQL: all users, those of some organizations, or only itself. */
function visibleTo(ctx: Ctx): SQL | undefined {
  const scope = ctx.principal.orgScope('user.read');
  if (scope === 'all') return undefined;
  const self = eq(users.id, ctx.principal.userId);
  return scope.length ? or(inArray(users.orgId, scope), self) : self;
}

/** ListUsers: filtered by the caller's permissions in SQL; deleted users are never listed. */
export async function listUsers(
  ctx: Ctx,
  query: { filters?: UserFilter[]; page?: PageRequest },
): Promise<ListResult<UserView>> {
  const p = page(query.page);
  const filters = query.filters ?? [];
  const where = and(ne(users.state, 'REMOVED'), visibleTo(ctx), ...filters.map((f) => filterCondition(f, 0)));
  const [total, rows] = await Promise.all([
    countedTotal(ctx, filters).then(
      async (counted) => counted ?? (await ctx.db.select({ total: count() }).from(users).where(where))[0].total,
    ),
    ctx.db
      .select({ user: users, primaryDomain: orgs.primaryDomain })
      .from(users)
      .innerJoin(orgs, eq(orgs.id, users.orgId))
      .where(where)
      .orderBy(...ordered(p, users.id))
      .limit(p.limit)
      .offset(p.offset),
  ]);
  // Login names come from a second query on the page's organizations: in the page query itself they
  // would be computed for every row skipped by the offset too.
  const list = await withLoginNames(
    ctx.db,
    rows.map((r) => ({ ...r.user, primaryDomain: r.primaryDomain })),
  );
  return { total, appliedLimit: p.limit, items: list };
}

/** A user the caller may read (for the list RPCs of its keys, tokens and metadata). */
async function readableUser(ctx: Ctx, userId: string): Promise<UserWithOrg> {
  const id = checkId('user_id', userId);
  const user = await readUser(ctx.db, id);
  if (!user) throw userNotFound();
  authorize(ctx, user, 'user.read', { self: true });
  return user;
}

export async function listKeys(ctx: Ctx, input: { userId: string; page?: PageRequest }) {
  return listSecretsOfUser(ctx, input, userKeys);
}

export async function listPersonalAccessTokens(ctx: Ctx, input: { userId: string; page?: PageRequest }) {
  return listSecretsOfUser(ctx, input, personalAccessTokens);
}

/** Keys and personal access tokens list alike: what they are called and when, never the secret. */
async function listSecretsOfUser(
  ctx: Ctx,
  input: { userId: string; page?: PageRequest },
  table: typeof userKeys | typeof personalAccessTokens,
) {
  const user = await readableUser(ctx, input.userId);
  const p = page(input.page);
  const where = eq(table.userId, user.id);
  const rows = ctx.db
    .select({ id: table.id, createdAt: table.createdAt, expiresAt: table.expiresAt })
    .from(table as typeof userKeys)
    .where(where)
    .orderBy(...ordered(p, table.id))
    .limit(p.limit)
    .offset(p.offset)
    .then((r) => r.map((x) => ({ ...x, userId: user.id, orgId: user.orgId })));
  return listResult(
    p,
    rows,
    ctx.db
      .select({ n: count() })
      .from(table as typeof userKeys)
      .where(where),
  );
}

/** ListUserMetadata: ordered by key (ascending unless asc is false and given explicitly). */
export async function listUserMetadata(ctx: Ctx, input: { userId: string; page?: PageRequest }) {
  const user = await readableUser(ctx, input.userId);
  const p = page(input.page);
  const where = eq(userMetadata.userId, user.id);
  const rows = ctx.db
    .select({ key: userMetadata.key, value: userMetadata.value })
    .from(userMetadata)
    .where(where)
    .orderBy(asc(userMetadata.key))
    .limit(p.limit)
    .offset(p.offset)
    .then((r) => r.map((x) => ({ key: x.key, value: metadataValueBytes(x.value) })));
  return listResult(p, rows, ctx.db.select({ n: count() }).from(userMetadata).where(where));
}

// ---------------------------------------------------------------------------------------------
// Lookups for the OIDC provider, the hosted login and the v1 layer (no caller permission checks).

/**
 * Checks a human user's password. It neither counts failures nor locks: the login applies the
 * instance's lockout policy around it.
 */
export async function checkUserPassword(db: Db, userId: string, password: string): Promise<boolean> {
  const [row] = await db
    .select({ hash: users.passwordHash, state: users.state })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.type, 'HUMAN')));
  if (!row?.hash || row.state === 'REMOVED') return false;
  return verifyPassword(row.hash, password);
}

/** A machine user's registered public key (for JWT profile assertions), unless expired. */
export async function findMachineKey(
  db: Db,
  keyId: string,
): Promise<{ userId: string; publicKey: string; expiresAt: Date | null } | undefined> {
  const [row] = await db
    .select({
      userId: userKeys.userId,
      publicKey: userKeys.publicKey,
      expiresAt: userKeys.expiresAt,
      state: users.state,
    })
    .from(userKeys)
    .innerJoin(users, eq(users.id, userKeys.userId))
    .where(eq(userKeys.id, keyId));
  if (!row || !maySignIn(row, MACHINE_SIGN_IN)) return undefined;
  if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) return undefined;
  return { userId: row.userId, publicKey: row.publicKey, expiresAt: row.expiresAt };
}
