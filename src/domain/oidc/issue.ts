import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { signJwt } from '../../crypto/keys/signing';
import { randomToken, sha256Hex } from '../../crypto/random';
import type { Db } from '../../db/client';
import { accessTokens, orgs, refreshTokens, users } from '../../db/schema/index';
import type { UnitOfWork } from '../execute';
import { newId } from '../ids';
import {
  type ClaimUser,
  hasAuthorization,
  maybeRoleClaims,
  metadataClaim,
  namedUserClaims,
  scopeClaims,
} from './claims';
import type { OidcEnv } from './env';
import { RESERVED } from './scopes';
import { signingKeyOf } from './web-keys';
import { acrMeeting } from '../policy/acr';

export const OPAQUE_ACCESS_TOKEN_PREFIX = 'pco_';
export const REFRESH_TOKEN_PREFIX = 'pcr_';

export const claimUserColumns = {
  id: users.id,
  orgId: users.orgId,
  username: users.username,
  orgDomain: orgs.primaryDomain,
  givenName: users.givenName,
  familyName: users.familyName,
  nickName: users.nickName,
  displayName: users.displayName,
  preferredLanguage: users.preferredLanguage,
  gender: users.gender,
  email: users.email,
  emailVerified: users.emailVerified,
  phone: users.phone,
  phoneVerified: users.phoneVerified,
  changedAt: users.changedAt,
  state: users.state,
  type: users.type,
  orgState: orgs.state,
};

export async function claimUser(
  db: Db,
  userId: string,
): Promise<(ClaimUser & { state: string; type: string; orgState: string }) | undefined> {
  const [row] = await db
    .select(claimUserColumns)
    .from(users)
    .innerJoin(orgs, eq(orgs.id, users.orgId))
    .where(eq(users.id, userId));
  return row;
}

export interface AccessTokenParams {
  format: 'jwt' | 'opaque';
  userId: string;
  orgId: string;
  clientId: string;
  projectId: string | null;
  scopes: string[];
  audience: string[];
  lifetimeSeconds: number;
  grantId?: string | null;
  sessionId?: string | null;
  refreshTokenId?: string | null;
  /** impersonation (token exchange): the acting user, asserted as `act` */
  actor?: { userId: string; clientId?: string } | null;
  /** extra JWT claims (roles when the application asserts them) */
  extraClaims?: Record<string, unknown>;
  /** RFC 9449: the thumbprint of the DPoP key the token is bound to (`cnf.jkt` in a JWT) */
  jkt?: string | null;
  /** user claims the `claims` parameter asked for at userinfo (OIDC Core §5.5), answered there beside the scopes' */
  userinfoClaims?: string[] | null;
}

/**
 * Issues an access token: a row in access_tokens in every case (so revocation, logout and user state
 * are seen by introspection and userinfo on every replica), plus either a JWT (RFC 9068 shape) or an
 * opaque random token whose SHA-256 is stored. Event `oidc_session.access_token.added`.
 */
export async function issueAccessToken(
  work: UnitOfWork,
  env: OidcEnv,
  p: AccessTokenParams,
): Promise<{ token: string; id: string; expiresIn: number }> {
  const id = newId() + randomToken(6);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + p.lifetimeSeconds * 1000);
  let token: string;
  if (p.format === 'jwt') {
    const iat = Math.floor(now.getTime() / 1000);
    const key = signingKeyOf(env);
    token = await signJwt(
      key,
      {
        iss: env.issuer,
        sub: p.userId,
        aud: p.audience,
        exp: iat + p.lifetimeSeconds,
        iat,
        nbf: iat,
        jti: id,
        client_id: p.clientId,
        scope: p.scopes.join(' '),
        ...(p.sessionId ? { sid: p.sessionId } : {}),
        ...(p.actor
          ? { act: { sub: p.actor.userId, ...(p.actor.clientId ? { client_id: p.actor.clientId } : {}) } }
          : {}),
        ...(p.extraClaims ?? {}),
        ...(p.jkt ? { cnf: { jkt: p.jkt } } : {}),
      },
      'at+jwt',
    );
  } else {
    token = randomToken(32, OPAQUE_ACCESS_TOKEN_PREFIX);
  }
  const bound = p.projectId ? await hasAuthorization(work.tx, p.userId, p.projectId) : false;
  await work.tx.insert(accessTokens).values({
    id,
    tokenHash: p.format === 'opaque' ? sha256Hex(token) : null,
    grantId: p.grantId ?? null,
    sessionId: p.sessionId ?? null,
    refreshTokenId: p.refreshTokenId ?? null,
    userId: p.userId,
    clientId: p.clientId,
    projectId: p.projectId,
    scopes: p.scopes,
    audience: p.audience,
    authorizationBound: bound,
    actorUserId: p.actor?.userId ?? null,
    jkt: p.jkt ?? null,
    userinfoClaims: p.userinfoClaims?.length ? p.userinfoClaims : null,
    issuedAt: now,
    expiresAt,
  });
  work.created('access_token', id);
  work.push({
    aggregateType: 'access_token',
    aggregateId: id,
    type: 'oidc_session.access_token.added',
    payload: {
      grantId: p.grantId,
      clientId: p.clientId,
      userId: p.userId,
      scope: p.scopes,
      actorUserId: p.actor?.userId,
    },
    resourceOwner: p.orgId,
  });
  return { token, id, expiresIn: p.lifetimeSeconds };
}

/** Issues a refresh token of a grant (hash stored; rotated on every use). */
export async function issueRefreshToken(
  work: UnitOfWork,
  p: {
    grantId: string;
    clientId: string;
    userId: string;
    orgId: string;
    scopes: string[];
    idleSeconds: number;
    absoluteExpiresAt: Date | null;
    /** RFC 9449 §5: the DPoP key a public client's refresh token is bound to */
    jkt?: string | null;
  },
): Promise<{ token: string; id: string }> {
  const id = newId() + randomToken(6);
  const token = randomToken(32, REFRESH_TOKEN_PREFIX);
  let expiresAt = new Date(Date.now() + p.idleSeconds * 1000);
  if (p.absoluteExpiresAt && p.absoluteExpiresAt < expiresAt) expiresAt = p.absoluteExpiresAt;
  await work.tx.insert(refreshTokens).values({
    id,
    tokenHash: sha256Hex(token),
    grantId: p.grantId,
    clientId: p.clientId,
    userId: p.userId,
    scopes: p.scopes,
    jkt: p.jkt ?? null,
    expiresAt,
  });
  work.created('refresh_token', id);
  work.push({
    aggregateType: 'refresh_token',
    aggregateId: id,
    type: 'oidc_session.refresh_token.added',
    payload: { grantId: p.grantId, clientId: p.clientId },
    resourceOwner: p.orgId,
  });
  return { token, id };
}

/** Left half of the hash of a token, as at_hash and c_hash want it (SHA-512 for EdDSA/Ed25519). */
export function halfHash(value: string, alg: string): string {
  const algo = alg === 'EdDSA' ? 'sha512' : alg.endsWith('384') ? 'sha384' : alg.endsWith('512') ? 'sha512' : 'sha256';
  const digest = createHash(algo).update(value).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export interface IdTokenParams {
  user: ClaimUser;
  clientId: string;
  projectId: string | null;
  audience: string[];
  scopes: string[];
  lifetimeSeconds: number;
  authTime: Date | null;
  amr: string[];
  sessionId: string | null;
  nonce: string | null;
  accessToken?: string;
  code?: string;
  /**
   * profile/email/phone/address claims go in the ID token (no access token issued, or the app's
   * id_token_userinfo_assertion)
   */
  includeUserClaims: boolean;
  roleClaims: { projectAssertsRoles: boolean; appAllows: boolean };
  actor?: { userId: string } | null;
  /**
   * The `claims` parameter's ID token requests (OIDC Core §5.5): user claims named here are included
   * whatever the scopes and includeUserClaims say; essential acr values decide the asserted acr.
   */
  requested?: { claims: string[]; essentialAcr: string[] | null };
}

/**
 * Signs an ID token with the claims of the baseline (iss, sub, aud, exp, iat, auth_time, nonce, azp,
 * amr, sid, at_hash, c_hash).
 */
export async function buildIdToken(work: UnitOfWork, env: OidcEnv, p: IdTokenParams): Promise<string> {
  const key = signingKeyOf(env);
  const iat = Math.floor(Date.now() / 1000);
  const aud = [p.clientId, ...p.audience.filter((a) => a !== p.clientId)];
  const claims: Record<string, unknown> = {
    iss: env.issuer,
    sub: p.user.id,
    aud,
    exp: iat + p.lifetimeSeconds,
    iat,
    azp: p.clientId,
  };
  if (p.authTime) claims.auth_time = Math.floor(p.authTime.getTime() / 1000);
  if (p.nonce) claims.nonce = p.nonce;
  if (p.amr.length) {
    claims.amr = p.amr;
    // the answer refused a session that meets none of the essential values (domain/oidc/authorize.ts)
    const acr = acrMeeting(p.amr, p.requested?.essentialAcr);
    if (acr) claims.acr = acr;
  }
  if (p.sessionId) claims.sid = p.sessionId;
  if (p.accessToken) claims.at_hash = halfHash(p.accessToken, key.alg);
  if (p.code) claims.c_hash = halfHash(p.code, key.alg);
  if (p.actor) claims.act = { sub: p.actor.userId };
  if (p.includeUserClaims) {
    Object.assign(claims, scopeClaims(p.user, p.scopes));
    if (p.scopes.includes(RESERVED.metadata)) claims[RESERVED.metadata] = await metadataClaim(work.tx, p.user.id);
  } else {
    const orgOnly = scopeClaims(
      p.user,
      p.scopes.filter((s) => RESERVED.org.test(s)),
    );
    Object.assign(claims, orgOnly);
  }
  if (p.requested) Object.assign(claims, namedUserClaims(p.user, p.requested.claims));
  Object.assign(
    claims,
    await maybeRoleClaims(work.tx, {
      userId: p.user.id,
      scopes: p.scopes,
      projectId: p.projectId,
      audience: p.audience,
      projectAssertsRoles: p.roleClaims.projectAssertsRoles,
      placeAllows: p.roleClaims.appAllows,
    }),
  );
  return signJwt(key, claims);
}
