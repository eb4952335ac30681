import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { authorizations, orgs, projects, userMetadata } from '../../db/schema/index';
import { findClient, type OidcClient } from './clients';
import { isMetadataDocumentUrl } from './client-metadata/url';
import { CLAIMS, RESERVED, requestedOrgId, requestedRoleKeys, wantsRoles } from './scopes';
import type { ActiveAccessToken } from './token-lookup';
import type { Source } from '../context';

/** The user columns claims are made of (one row, read together with the token). */
export interface ClaimUser {
  id: string;
  orgId: string;
  username: string;
  orgDomain: string;
  givenName: string | null;
  familyName: string | null;
  nickName: string | null;
  displayName: string | null;
  preferredLanguage: string | null;
  gender: string | null;
  email: string | null;
  emailVerified: boolean;
  phone: string | null;
  phoneVerified: boolean;
  changedAt: Date;
}

/**
 * The user claims we issue, each from the user's row; undefined where the user has no value (a claim
 * is never made up). The verified flags only come with the address or number they are about.
 */
export const USER_CLAIMS: Record<string, (u: ClaimUser) => unknown> = {
  name: (u) => u.displayName || undefined,
  given_name: (u) => u.givenName || undefined,
  family_name: (u) => u.familyName || undefined,
  nickname: (u) => u.nickName || undefined,
  locale: (u) => u.preferredLanguage || undefined,
  gender: (u) => u.gender?.toLowerCase() || undefined,
  preferred_username: (u) => `${u.username}@${u.orgDomain}`,
  updated_at: (u) => Math.floor(u.changedAt.getTime() / 1000),
  email: (u) => u.email || undefined,
  email_verified: (u) => (u.email ? u.emailVerified : undefined),
  phone_number: (u) => u.phone || undefined,
  phone_number_verified: (u) => (u.phone ? u.phoneVerified : undefined),
};

/** The user claims of the standard scopes (OIDC Core §5.4; address has no data yet). */
const SCOPE_CLAIMS: Record<string, string[]> = {
  profile: ['name', 'given_name', 'family_name', 'nickname', 'locale', 'gender', 'preferred_username', 'updated_at'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** The named user claims the user has a value for; names we do not issue are skipped. */
export function namedUserClaims(u: ClaimUser, names: readonly string[]): Record<string, unknown> {
  const c: Record<string, unknown> = {};
  for (const name of names) {
    const value = Object.hasOwn(USER_CLAIMS, name) ? USER_CLAIMS[name](u) : undefined;
    if (value !== undefined) c[name] = value;
  }
  return c;
}

/** Claims of the scopes profile, email, phone (address has no data yet) and the org scope. */
export function scopeClaims(u: ClaimUser, scopes: string[]): Record<string, unknown> {
  const c = namedUserClaims(
    u,
    scopes.flatMap((s) => (Object.hasOwn(SCOPE_CLAIMS, s) ? SCOPE_CLAIMS[s] : [])),
  );
  if (requestedOrgId(scopes)) c[CLAIMS.orgId] = u.orgId;
  return c;
}

/** `urn:service:iam:user:metadata`: {key: base64(value)}. */
export async function metadataClaim(db: Db, userId: string): Promise<Record<string, string>> {
  const rows = await db
    .select({ key: userMetadata.key, value: userMetadata.value })
    .from(userMetadata)
    .where(eq(userMetadata.userId, userId));
  return Object.fromEntries(rows.map((r) => [r.key, Buffer.from(r.value, 'utf8').toString('base64')]));
}

/**
 * The roles claims: `urn:service:iam:org:project:roles` = {roleKey: {orgId: orgPrimaryDomain}} for
 * the client's project (or, with `…:projects:roles`, every project of the audience), and the same per
 * project under `urn:service:iam:org:project:{projectId}:roles`. Role scopes limit the keys.
 */
export async function roleClaims(
  db: Db,
  userId: string,
  projectIds: string[],
  roleKeys: string[],
): Promise<Record<string, unknown>> {
  if (projectIds.length === 0) return {};
  const rows = await db
    .select({
      projectId: authorizations.projectId,
      orgId: authorizations.orgId,
      roleKeys: authorizations.roleKeys,
      domain: orgs.primaryDomain,
    })
    .from(authorizations)
    .innerJoin(orgs, eq(orgs.id, authorizations.orgId))
    .where(
      and(
        eq(authorizations.userId, userId),
        inArray(authorizations.projectId, projectIds),
        eq(authorizations.state, 'ACTIVE'),
      ),
    );
  const all: Record<string, Record<string, string>> = {};
  const perProject: Record<string, Record<string, Record<string, string>>> = {};
  for (const r of rows) {
    for (const key of r.roleKeys) {
      if (roleKeys.length && !roleKeys.includes(key)) continue;
      all[key] = { ...all[key], [r.orgId]: r.domain };
      const project = perProject[r.projectId] ?? {};
      project[key] = { ...project[key], [r.orgId]: r.domain };
      perProject[r.projectId] = project;
    }
  }
  const out: Record<string, unknown> = {};
  if (Object.keys(all).length) out[CLAIMS.roles] = all;
  for (const [pid, roles] of Object.entries(perProject)) out[CLAIMS.projectRoles(pid)] = roles;
  return out;
}

/** Which projects' roles a token asserts: the client's, or every audience project with `…:projects:roles`. */
export function roleProjects(scopes: string[], clientProjectId: string | null, audience: string[]): string[] {
  if (scopes.includes(RESERVED.allProjectRoles))
    return [...new Set([...(clientProjectId ? [clientProjectId] : []), ...audience])];
  return clientProjectId ? [clientProjectId] : [];
}

/** Adds the roles claims when the scopes ask for them or the project asserts roles (and the place allows it). */
export async function maybeRoleClaims(
  db: Db,
  opts: {
    userId: string;
    scopes: string[];
    projectId: string | null;
    audience: string[];
    projectAssertsRoles: boolean;
    placeAllows: boolean;
  },
): Promise<Record<string, unknown>> {
  if (!opts.placeAllows) return {};
  if (!wantsRoles(opts.scopes) && !opts.projectAssertsRoles) return {};
  return roleClaims(
    db,
    opts.userId,
    roleProjects(opts.scopes, opts.projectId, opts.audience),
    requestedRoleKeys(opts.scopes),
  );
}

/**
 * The user's claims an access token's scopes grant, as userinfo and introspection answer them: the
 * scope claims, the metadata and the roles (asserted when the project of the client the token was
 * issued to says so). `caller` spares the client lookup when it is that client.
 */
export async function accessTokenUserClaims(
  src: Source,
  at: ActiveAccessToken,
  caller?: OidcClient,
): Promise<Record<string, unknown>> {
  const { db } = src;
  const claims = scopeClaims(at.user, at.scopes);
  if (at.scopes.includes(RESERVED.metadata)) claims[RESERVED.metadata] = await metadataClaim(db, at.userId);
  const issuedTo = at.clientId === caller?.clientId ? caller : await findClient(src, at.clientId);
  // A client identified by a metadata document has no application row: its project is the token's.
  const projectAssertsRoles = issuedTo
    ? issuedTo.project.roleAssertion
    : isMetadataDocumentUrl(at.clientId) && !!at.projectId && (await projectAssertsRolesOf(db, at.projectId));
  const roles = await maybeRoleClaims(db, {
    userId: at.userId,
    scopes: at.scopes,
    projectId: at.projectId,
    audience: at.audience,
    projectAssertsRoles,
    placeAllows: true,
  });
  return Object.assign(claims, roles);
}

async function projectAssertsRolesOf(db: Db, projectId: string): Promise<boolean> {
  const [row] = await db
    .select({ assert: projects.projectRoleAssertion })
    .from(projects)
    .where(eq(projects.id, projectId));
  return !!row?.assert;
}

/** Whether the user holds an active authorization on the project (project.authorizationRequired). */
export async function hasAuthorization(db: Db, userId: string, projectId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: authorizations.id })
    .from(authorizations)
    .where(
      and(
        eq(authorizations.userId, userId),
        eq(authorizations.projectId, projectId),
        eq(authorizations.state, 'ACTIVE'),
      ),
    )
    .limit(1);
  return !!row;
}
