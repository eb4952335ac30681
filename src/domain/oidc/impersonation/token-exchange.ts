import { maySignIn, TOKEN_USE } from '../../session/may-sign-in';
/**
 * Token exchange (RFC 8693): a client trades a user's token for a new one — impersonation (the new
 * token is the subject's, with an `act` claim naming the actor) or plain narrowing of scopes and
 * audience. It acts on behalf of users, which is why it lives here and not with the machine grants.
 */
import { type CryptoKey, decodeProtectedHeader, importSPKI, type JWTPayload, jwtVerify } from 'jose';
import { Principal } from '../../../authz/principal';
import { membershipsOf } from '../../administrator/memberships';
import { and, eq, gt, inArray, isNull, or } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { oidcGrants, sessions } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { execute } from '../../execute';
import type { OidcClient } from '../clients';
import type { OidcEnv } from '../env';
import { createGrant } from '../grants';
import { buildIdToken, claimUser, issueAccessToken, issueRefreshToken } from '../issue';
import { invalidGrant, invalidRequest, invalidScope, invalidTarget } from '../oauth-errors';
import { grantableAudience, grantableScopes } from '../api-clients';
import { isKnownScope, splitScopes } from '../scopes';
import { instanceSettings } from '../settings';
import { findActiveAccessToken } from '../token-lookup';
import { type TokenResponse, tokenTypeOf } from '../token-issuance';
import { verifyOwnJwt, withSigningKey } from '../web-keys';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

export const TOKEN_TYPES = {
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  refreshToken: 'urn:ietf:params:oauth:token-type:refresh_token',
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  userId: 'urn:service:params:oauth:token-type:user_id',
} as const;

/**
 * Scopes an ID token stands for: those granted in its session to the clients it was issued for, while
 * that session is live and the grant not revoked; none at all once the session has ended (logout,
 * revocation), so an old ID token cannot be turned into fresh tokens. An ID token without a session
 * (the JWT profile's) stands for `openid` only.
 */
async function grantAllowsRefresh(db: Db, grantId: string): Promise<boolean> {
  const [g] = await db
    .select({ scopes: oidcGrants.scopes })
    .from(oidcGrants)
    .where(and(eq(oidcGrants.id, grantId), isNull(oidcGrants.revokedAt)));
  return !!g?.scopes.includes('offline_access');
}

async function idTokenScopes(db: Db, sessionId: string | null, audience: string[]): Promise<string[] | undefined> {
  if (!sessionId) return ['openid'];
  if (!audience.length) return undefined;
  const rows = await db
    .select({ scopes: oidcGrants.scopes })
    .from(oidcGrants)
    .innerJoin(sessions, eq(sessions.id, oidcGrants.sessionId))
    .where(
      and(
        eq(oidcGrants.sessionId, sessionId),
        inArray(oidcGrants.clientId, audience),
        isNull(oidcGrants.revokedAt),
        isNull(sessions.terminatedAt),
        or(isNull(sessions.expiresAt), gt(sessions.expiresAt, new Date())),
      ),
    );
  if (!rows.length) return undefined;
  return [...new Set(rows.flatMap((r) => r.scopes))].filter((s) => s !== 'offline_access');
}

export interface ExchangeRequest {
  client: OidcClient;
  subjectToken?: string;
  subjectTokenType?: string;
  actorToken?: string;
  actorTokenType?: string;
  requestedTokenType?: string;
  scope?: string;
  /** space-separated (a repeated `audience` parameter is invalid_request at this endpoint) */
  audience?: string;
  resource?: string;
  /** RFC 9449: the key of the request's DPoP proof; the new access token is bound to it */
  dpopJkt?: string;
  /** …and the new refresh token (public clients only) */
  refreshJkt?: string;
}

/** A party of the exchange (subject or actor) as read from its token. */
interface Party {
  userId: string;
  audience: string[];
  scopes: string[];
  sessionId: string | null;
  nonce: string | null;
  authTime: Date | null;
  amr: string[];
  /** a DPoP-bound access token's key */
  jkt?: string | null;
}

/**
 * The token exchange matrix of spec §2.8 (RFC 8693):
 *
 * | type          | subject_token                         | actor_token      | requested_token_type |
 * | access_token  | JWT or opaque                         | JWT or opaque    | opaque access token  |
 * | refresh_token | no                                    | no               | no                   |
 * | id_token      | yes                                   | yes              | ID token (`N_A`)     |
 * | jwt           | signed by the client, with actor only | no               | access token as JWT  |
 * | user_id       | a user id, with actor only            | no               | no                   |
 *
 * The audience must be a subset of the subject's and actor's audiences (invalid_target), scopes a
 * subset of theirs (invalid_scope; `offline_access` when the client may refresh). An actor other
 * than the subject impersonates it: that needs the instance's impersonationAllowed setting and the
 * actor's `impersonation` permission on the subject's organization; the tokens then carry `act`,
 * keep the subject's `sid` and `nonce`, and a `user.impersonated` event is recorded.
 */
export async function exchangeToken(ctx: Ctx, env: OidcEnv, r: ExchangeRequest): Promise<TokenResponse> {
  if (r.resource !== undefined) throw invalidRequest('resource is not supported: name the target with audience');
  if (!r.subjectToken) throw invalidRequest('subject_token is missing');
  if (!r.subjectTokenType) throw invalidRequest('subject_token_type is missing');
  if (r.actorToken !== undefined && !r.actorTokenType)
    throw invalidRequest('actor_token_type is required with actor_token');
  if (r.actorTokenType !== undefined && r.actorToken === undefined)
    throw invalidRequest('actor_token_type without actor_token');
  const requested = r.requestedTokenType ?? TOKEN_TYPES.accessToken;
  checkSubjectType(r.subjectTokenType, r.actorToken !== undefined);
  if (
    r.actorTokenType !== undefined &&
    r.actorTokenType !== TOKEN_TYPES.accessToken &&
    r.actorTokenType !== TOKEN_TYPES.idToken
  ) {
    throw invalidRequest(`actor_token_type ${r.actorTokenType} is not allowed: use an access token or an ID token`);
  }
  if (requested !== TOKEN_TYPES.accessToken && requested !== TOKEN_TYPES.jwt && requested !== TOKEN_TYPES.idToken) {
    throw invalidRequest(`requested_token_type ${requested} is not supported`);
  }

  const subject = await readParty(ctx, env, r.client, r.subjectToken, r.subjectTokenType, 'subject_token');
  const actor = r.actorToken
    ? await readParty(ctx, env, r.client, r.actorToken, r.actorTokenType!, 'actor_token')
    : undefined;
  // RFC 9449: a DPoP-bound token is exchanged only by the holder of its key, or a stolen bound token
  // could be traded for an unbound one.
  for (const [party, field] of [
    [subject, 'subject_token'],
    [actor, 'actor_token'],
  ] as const) {
    if (party?.jkt && party.jkt !== r.dpopJkt)
      throw invalidGrant(`${field} is DPoP-bound: send a DPoP proof with its key`);
  }
  // the API stays out of a token for a client that is not an API client, whatever the tokens carried
  const available = grantableAudience(r.client, [...new Set([...subject.audience, ...(actor?.audience ?? [])])]);
  // The caller may only exchange what was issued for it (as introspection would show it).
  if (!available.includes(r.client.clientId) && !available.includes(r.client.projectId)) {
    throw invalidGrant('the tokens were not issued for this client (it is not in their audience)');
  }
  const audience = chooseAudience(r.audience, available);
  const mayRefresh = !!r.client.oidc?.grantTypes.includes('REFRESH_TOKEN');
  const scopes = grantableScopes(r.client, chooseScopes(r.scope, subject, actor, r.client));

  const [settings, user] = await Promise.all([
    instanceSettings(ctx.db, ctx.instanceId),
    claimUser(ctx.db, subject.userId),
  ]);
  if (!user || !maySignIn(user, TOKEN_USE)) throw invalidGrant('the subject user is not active');
  const impersonator = actor && actor.userId !== subject.userId ? actor : undefined;
  if (impersonator)
    await checkImpersonation(ctx, settings.impersonationAllowed, impersonator.userId, user.id, user.orgId);

  env = await withSigningKey(ctx, env);
  const { client } = r;
  const oidc = client.oidc;
  const roleClaims = { projectAssertsRoles: client.project.roleAssertion, appAllows: !!oidc?.idTokenRoleAssertion };
  const actorRef = impersonator ? { userId: impersonator.userId, clientId: client.clientId } : null;
  return execute(ctx, async (work) => {
    if (impersonator) {
      work.push({
        aggregateType: 'user',
        aggregateId: subject.userId,
        type: 'user.impersonated',
        payload: { actorUserId: impersonator.userId, clientId: client.clientId, sessionId: subject.sessionId },
        resourceOwner: user.orgId,
      });
    }
    const idTokenOf = (accessToken?: string) =>
      buildIdToken(work, env, {
        user,
        clientId: client.clientId,
        projectId: client.projectId,
        audience,
        scopes,
        lifetimeSeconds: settings.idTokenLifetimeSeconds,
        authTime: subject.authTime,
        amr: subject.amr,
        sessionId: subject.sessionId,
        nonce: subject.nonce,
        accessToken,
        includeUserClaims: !accessToken || !!oidc?.idTokenUserinfoAssertion,
        roleClaims,
        actor: actorRef,
      });
    if (requested === TOKEN_TYPES.idToken) {
      const idToken = await idTokenOf();
      return {
        access_token: idToken,
        token_type: 'N_A',
        issued_token_type: TOKEN_TYPES.idToken,
        expires_in: settings.idTokenLifetimeSeconds,
        scope: scopes.join(' '),
      };
    }
    let refresh: { token: string; id: string } | undefined;
    let grantId: string | null = null;
    if (scopes.includes('offline_access') && mayRefresh) {
      const grant = await createGrant(work, {
        sessionId: subject.sessionId,
        userId: user.id,
        orgId: user.orgId,
        clientId: client.clientId,
        applicationId: client.applicationId,
        projectId: client.projectId,
        scopes,
        audience,
        authTime: subject.authTime,
        amr: subject.amr,
        absoluteExpiresAt: new Date(Date.now() + settings.refreshTokenAbsoluteSeconds * 1000),
        actor: actorRef,
      });
      grantId = grant.id;
      refresh = await issueRefreshToken(work, {
        grantId: grant.id,
        clientId: client.clientId,
        userId: user.id,
        orgId: user.orgId,
        scopes,
        idleSeconds: settings.refreshTokenIdleSeconds,
        absoluteExpiresAt: grant.absoluteExpiresAt,
        jkt: r.refreshJkt,
      });
    }
    const at = await issueAccessToken(work, env, {
      format: requested === TOKEN_TYPES.jwt ? 'jwt' : 'opaque',
      userId: user.id,
      orgId: user.orgId,
      clientId: client.clientId,
      projectId: client.projectId,
      scopes: scopes.filter((s) => s !== 'offline_access'),
      audience,
      lifetimeSeconds: settings.accessTokenLifetimeSeconds,
      grantId,
      sessionId: subject.sessionId,
      refreshTokenId: refresh?.id ?? null,
      actor: actorRef,
      jkt: r.dpopJkt,
    });
    const out: TokenResponse = {
      access_token: at.token,
      token_type: tokenTypeOf(r.dpopJkt),
      issued_token_type: requested,
      expires_in: at.expiresIn,
      scope: scopes.join(' '),
    };
    if (refresh) out.refresh_token = refresh.token;
    if (scopes.includes('openid')) out.id_token = await idTokenOf(at.token);
    return out;
  });
}

function checkSubjectType(type: string, withActor: boolean): void {
  switch (type) {
    case TOKEN_TYPES.accessToken:
    case TOKEN_TYPES.idToken:
      return;
    case TOKEN_TYPES.jwt:
    case TOKEN_TYPES.userId:
      if (!withActor) throw invalidRequest(`subject_token_type ${type} needs an actor_token`);
      return;
    case TOKEN_TYPES.refreshToken:
      throw invalidRequest('refresh tokens cannot be exchanged');
    default:
      throw invalidRequest(`subject_token_type ${type} is not supported`);
  }
}

async function readParty(
  ctx: Ctx,
  env: OidcEnv,
  client: OidcClient,
  token: string,
  type: string,
  field: string,
): Promise<Party> {
  const invalid = () => invalidGrant(`${field} is invalid, expired or revoked`);
  switch (type) {
    case TOKEN_TYPES.accessToken: {
      const at = await findActiveAccessToken(ctx.db, env.masterKey, env.issuer, token);
      if (!at) throw invalid();
      // An access token never lists offline_access; its grant does when the user allowed refreshing.
      const scopes =
        at.grantId && (await grantAllowsRefresh(ctx.db, at.grantId)) ? [...at.scopes, 'offline_access'] : at.scopes;
      return {
        userId: at.userId,
        audience: at.audience,
        scopes,
        sessionId: at.sessionId,
        nonce: null,
        authTime: null,
        amr: [],
        jkt: at.jkt,
      };
    }
    case TOKEN_TYPES.idToken: {
      let p: JWTPayload;
      try {
        ({ payload: p } = await verifyOwnJwt(ctx.db, env.masterKey, token, { issuer: env.issuer, typ: 'JWT' }));
      } catch {
        throw invalid();
      }
      if (typeof p.sub !== 'string') throw invalid();
      const audience = Array.isArray(p.aud) ? p.aud : p.aud ? [p.aud] : [];
      const sessionId = typeof p.sid === 'string' ? p.sid : null;
      const scopes = await idTokenScopes(ctx.db, sessionId, audience);
      if (!scopes) throw invalid();
      return {
        userId: p.sub,
        audience,
        scopes,
        sessionId,
        nonce: typeof p.nonce === 'string' ? p.nonce : null,
        authTime: typeof p.auth_time === 'number' ? new Date(p.auth_time * 1000) : null,
        amr: Array.isArray(p.amr) ? p.amr.filter((a): a is string => typeof a === 'string') : [],
      };
    }
    case TOKEN_TYPES.jwt:
      return {
        userId: await verifyClientJwt(env, client, token, field),
        audience: [],
        scopes: [],
        sessionId: null,
        nonce: null,
        authTime: null,
        amr: [],
      };
    case TOKEN_TYPES.userId: {
      const u = await claimUser(ctx.db, token);
      if (!u || u.state === 'REMOVED') throw invalidGrant(`${field}: unknown user`);
      return { userId: u.id, audience: [], scopes: [], sessionId: null, nonce: null, authTime: null, amr: [] };
    }
    default:
      throw invalidRequest(`${field}_type ${type} is not supported`);
  }
}

/** A JWT the client signed with one of its registered keys: iss = client id, sub = the user, aud = us, exp. */
async function verifyClientJwt(env: OidcEnv, client: OidcClient, token: string, field: string): Promise<string> {
  let alg: string | undefined;
  let kid: string | undefined;
  try {
    ({ alg, kid } = decodeProtectedHeader(token));
  } catch {
    throw invalidGrant(`${field} is not a JWT`);
  }
  if (!alg || alg === 'none' || alg.startsWith('HS')) throw invalidGrant(`${field}: algorithm not allowed`);
  const now = Date.now();
  for (const k of client.keys) {
    if ((kid && k.id !== kid) || (k.expiresAt && k.expiresAt.getTime() <= now)) continue;
    let key: CryptoKey;
    try {
      key = await importSPKI(k.publicKey, alg);
    } catch {
      continue;
    }
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: [alg],
        issuer: client.clientId,
        audience: [env.issuer, `${env.issuer}/`, `${env.issuer}/oauth/v2/token`],
        clockTolerance: 5,
      });
      if (typeof payload.exp !== 'number') throw invalidGrant(`${field}: exp is missing`);
      if (typeof payload.sub !== 'string' || !payload.sub) throw invalidGrant(`${field}: sub is missing`);
      return payload.sub;
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') continue;
      if (err instanceof Error && 'kind' in err) throw err;
      throw invalidGrant(`${field} rejected: ${(err as Error).message}`);
    }
  }
  throw invalidGrant(`${field} must be signed with a registered key of the client`);
}

function chooseAudience(raw: string | undefined, available: string[]): string[] {
  const wanted = splitScopes(raw);
  if (!wanted.length) return available;
  const outside = wanted.filter((a) => !available.includes(a));
  if (outside.length)
    throw invalidTarget(`audience ${outside.join(' ')} is outside the audience of the subject and actor tokens`);
  return wanted;
}

function chooseScopes(
  raw: string | undefined,
  subject: Party,
  actor: Party | undefined,
  client: Parameters<typeof grantableScopes>[0],
): string[] {
  // Never wider than what the tokens carried: offline_access (a refresh token) too only when a token
  // carried it (and the client may refresh: see the caller).
  const allowed = new Set([...subject.scopes, ...(actor?.scopes ?? [])]);
  if (raw === undefined || raw === '') return subject.scopes.length ? subject.scopes : (actor?.scopes ?? []);
  const wanted = splitScopes(raw);
  // the API audience scope of a client that is not an API client is as unknown as any other
  const known = grantableScopes(client, wanted.filter(isKnownScope));
  const unknown = wanted.filter((s) => !known.includes(s));
  if (unknown.length) throw invalidScope(`unknown scope ${unknown.join(' ')}`);
  const beyond = wanted.filter((s) => !allowed.has(s));
  if (beyond.length)
    throw invalidScope(`scope ${beyond.join(' ')} is beyond the scopes of the subject and actor tokens`);
  return wanted;
}

async function checkImpersonation(
  ctx: Ctx,
  allowedByInstance: boolean,
  actorId: string,
  subjectId: string,
  subjectOrgId: string,
): Promise<void> {
  if (!allowedByInstance) throw invalidRequest('impersonation is not allowed on this instance');
  const actorUser = await claimUser(ctx.db, actorId);
  if (!actorUser || !maySignIn(actorUser, TOKEN_USE)) throw invalidGrant('the actor is not active');
  const principal = new Principal(actorId, actorUser.orgId, await membershipsOf(ctx.db, actorId));
  if (!principal.canOrg('impersonation', subjectOrgId))
    throw invalidGrant("the actor lacks the impersonation permission on the subject's organization");
  // Impersonation never reaches upwards: the actor must hold every permission of the subject, so
  // the impersonated token carries no more than the actor could do itself.
  if (!principal.covers(await membershipsOf(ctx.db, subjectId)))
    throw invalidGrant('the subject holds permissions that the actor does not hold');
}
