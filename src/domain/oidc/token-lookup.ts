import { maySignIn, TOKEN_USE } from '../session/may-sign-in';
import { eq, sql } from 'drizzle-orm';
import { sha256Hex } from '../../crypto/random';
import type { Db } from '../../db/client';
import {
  accessTokens,
  applications,
  authorizations,
  instances,
  oidcGrants,
  orgs,
  projectGrants,
  projects,
  users,
} from '../../db/schema/index';
import type { ClaimUser } from './claims';
import { claimUserColumns, OPAQUE_ACCESS_TOKEN_PREFIX } from './issue';
import { findActiveMachineToken } from './m2m/tokens';
import { cachedLookup } from './token-cache';
import { verifyOwnJwt } from './web-keys';
import type { Source } from '../context';

export interface ActiveAccessToken {
  id: string;
  userId: string;
  clientId: string;
  projectId: string | null;
  scopes: string[];
  audience: string[];
  sessionId: string | null;
  /** the grant (code flow, refresh, exchange) the token was issued under; null for machine tokens */
  grantId: string | null;
  actorUserId: string | null;
  /** user claims the grant's `claims` parameter asked for at userinfo (OIDC Core §5.5) */
  userinfoClaims: string[];
  issuedAt: Date;
  expiresAt: Date;
  /** RFC 9449: thumbprint of the DPoP key the token is bound to; null for a bearer token */
  jkt: string | null;
  user: ClaimUser;
}

/**
 * Finds an access token that is active right now: not expired, not revoked (by the client, by logout,
 * by a grant revocation), its user active, and — when the user held an authorization on the project
 * at issuance — that authorization still active. One query, and none while the answer is cached
 * (token-cache.ts); JWTs are verified against our published keys first and then looked up by `jti`.
 */
export async function findActiveAccessToken(
  src: Source,
  masterKey: Buffer,
  issuer: string,
  token: string,
): Promise<ActiveAccessToken | undefined> {
  // One cache for every kind of token, keyed by the token's hash so that no usable token is kept in it.
  const hash = sha256Hex(token);
  return cachedLookup(
    src.runtime,
    hash,
    async () => {
      // Tokens of the machine grants carry their claims (no row); they are checked by their own module.
      const machine = await findActiveMachineToken(src, masterKey, issuer, token);
      if (machine !== undefined) return machine ?? undefined;
      if (!token.startsWith(OPAQUE_ACCESS_TOKEN_PREFIX) && token.split('.').length !== 3) return undefined;
      return lookUp(src, masterKey, issuer, token, hash);
    },
    (t) => t.expiresAt.getTime() > Date.now(),
  );
}

async function lookUp(
  src: Source,
  masterKey: Buffer,
  issuer: string,
  token: string,
  hash: string,
): Promise<ActiveAccessToken | undefined> {
  let by: { kind: 'hash' | 'id'; value: string };
  if (token.startsWith(OPAQUE_ACCESS_TOKEN_PREFIX)) {
    by = { kind: 'hash', value: hash };
  } else {
    let jti: unknown;
    try {
      jti = (await verifyOwnJwt(src, masterKey, token, { issuer })).payload.jti;
    } catch {
      return undefined;
    }
    if (typeof jti !== 'string') return undefined;
    by = { kind: 'id', value: jti };
  }
  const [row] = await statements(src.db)[by.kind].execute({ v: by.value });
  if (!row) return undefined;
  const { t } = row;
  if (t.revokedAt || t.expiresAt.getTime() <= Date.now()) return undefined;
  if (!maySignIn({ state: row.userState, orgState: row.u.orgState }, TOKEN_USE)) return undefined;
  if (!row.authorized || !row.clientUsable || row.grantRevoked) return undefined;
  return {
    id: t.id,
    userId: t.userId,
    clientId: t.clientId,
    projectId: t.projectId,
    scopes: t.scopes,
    audience: t.audience,
    sessionId: t.sessionId,
    grantId: t.grantId,
    actorUserId: t.actorUserId,
    userinfoClaims: t.userinfoClaims ?? [],
    issuedAt: t.issuedAt,
    expiresAt: t.expiresAt,
    jkt: t.jkt,
    user: row.u,
  };
}

/**
 * The project `p` still lets the token's user in: active, and its authorization and access
 * requirements hold (user-access.ts's rule, for tokens already issued).
 */
const projectStillAllows = sql`p.state = 'ACTIVE'
  and (not p.authorization_required or exists (select 1 from ${authorizations} z
    where z.user_id = ${accessTokens.userId} and z.project_id = p.id and z.state = 'ACTIVE'))
  and (not p.project_access_required or p.org_id = ${users.orgId}
    or exists (select 1 from ${projectGrants} g
      where g.project_id = p.id and g.granted_org_id = ${users.orgId} and g.state = 'ACTIVE'))`;

/**
 * The lookup is the hot path of userinfo and introspection: built once per database handle as
 * prepared statements (no query building per request; PostgreSQL keeps the plan per connection).
 */
function build(db: Db) {
  const base = () =>
    db
      .select({
        t: accessTokens,
        u: claimUserColumns,
        userState: users.state,
        authorized: sql<boolean>`(not ${accessTokens.authorizationBound} or exists (select 1 from ${authorizations}
          where ${authorizations.userId} = ${accessTokens.userId}
            and ${authorizations.projectId} = ${accessTokens.projectId} and ${authorizations.state} = 'ACTIVE'))`,
        // A revoked grant (code replay, refresh token reuse, revocation, logout) takes every token of
        // it along, also one whose issuance committed after the revocation: the check is made here, at
        // every lookup, not only by marking the tokens that existed when the grant was revoked.
        grantRevoked: sql<boolean>`exists (select 1 from ${oidcGrants} g
          where g.id = ${accessTokens.grantId} and g.revoked_at is not null)`,
        // the rule of user-access.ts for tokens already issued: the application and its project are
        // active, and the project's access and authorization requirements still hold. A client
        // identified by a metadata document (its client id is the URL) has no application: its
        // project (the token's) must still be the one the instance setting names, with the setting
        // on. Two separate lookups, so that the common one keeps its index path by client id.
        clientUsable: sql<boolean>`(exists (select 1 from ${applications} a join ${projects} p on p.id = a.project_id
          where a.client_id = ${accessTokens.clientId} and a.state = 'ACTIVE' and ${projectStillAllows})
        or (${accessTokens.clientId} ~ '^https?://' and exists (select 1 from ${projects} p
          where p.id = ${accessTokens.projectId} and ${projectStillAllows}
            and exists (select 1 from ${instances} i where i.settings->>'clientIdMetadataDocuments' = 'true'
              and i.settings->>'clientIdMetadataDocumentsProjectId' = p.id))))`,
      })
      .from(accessTokens)
      .innerJoin(users, eq(users.id, accessTokens.userId))
      .innerJoin(orgs, eq(orgs.id, users.orgId));
  return {
    hash: base()
      .where(eq(accessTokens.tokenHash, sql.placeholder('v')))
      .prepare('oidc_access_token_by_hash'),
    id: base()
      .where(eq(accessTokens.id, sql.placeholder('v')))
      .prepare('oidc_access_token_by_id'),
  };
}
// Keyed by the handle the statements were prepared on: they belong to it, not to a server, and go with it.
const prepared = new WeakMap<Db, ReturnType<typeof build>>();
function statements(db: Db): ReturnType<typeof build> {
  let s = prepared.get(db);
  if (!s) {
    s = build(db);
    prepared.set(db, s);
  }
  return s;
}
