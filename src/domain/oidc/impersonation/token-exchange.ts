/**
 * Token exchange (RFC 8693): a client trades a user's token for a new one — impersonation (the new
 * token is the subject's, with an `act` claim naming the actor) or plain narrowing of scopes and
 * audience. It acts on behalf of users, which is why it lives here and not with the machine grants.
 */
import type { Ctx } from '../../context';
import { execute, type UnitOfWork } from '../../execute';
import { maySignIn, TOKEN_USE } from '../../session/may-sign-in';
import { grantableAudience, grantableScopes } from '../api-clients';
import type { OidcClient } from '../clients';
import type { OidcEnv } from '../env';
import { createGrant } from '../grants';
import { buildIdToken, claimUser, issueAccessToken, issueRefreshToken } from '../issue';
import { invalidGrant, invalidRequest, invalidScope, invalidTarget } from '../oauth-errors';
import { isKnownScope, splitScopes } from '../scopes';
import { instanceSettings } from '../settings';
import { type TokenResponse, tokenResponse, tokenTypeOf } from '../token-issuance';
import { withSigningKey } from '../web-keys';
import { checkImpersonation, recordImpersonation } from './impersonation';
import { type Party, readParty, TOKEN_TYPES } from './parties';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

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

/** What an exchange issues from, once the request passed every check. */
interface Exchange {
  request: ExchangeRequest;
  /** with the signing key loaded */
  env: OidcEnv;
  settings: Awaited<ReturnType<typeof instanceSettings>>;
  user: NonNullable<Awaited<ReturnType<typeof claimUser>>>;
  subject: Party;
  audience: string[];
  scopes: string[];
  /** the impersonating user, carried as `act`; null when the subject acts for itself */
  actor: { userId: string; clientId: string } | null;
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
  const requested = checkRequest(r);
  const { subject, actor } = await readParties(ctx, env, r);
  const audience = chooseAudience(r.audience, availableAudience(r.client, subject, actor));
  const scopes = grantableScopes(r.client, chooseScopes(r.scope, subject, actor, r.client));
  const [settings, user] = await Promise.all([
    instanceSettings(ctx, ctx.instanceId),
    claimUser(ctx.db, subject.userId),
  ]);
  if (!user || !maySignIn(user, TOKEN_USE)) throw invalidGrant('the subject user is not active');
  const impersonator = actor && actor.userId !== subject.userId ? actor : undefined;
  if (impersonator)
    await checkImpersonation(ctx, settings.impersonationAllowed, impersonator.userId, user.id, user.orgId);
  const x: Exchange = {
    request: r,
    env: await withSigningKey(ctx, env),
    settings,
    user,
    subject,
    audience,
    scopes,
    actor: impersonator ? { userId: impersonator.userId, clientId: r.client.clientId } : null,
  };
  return execute(ctx, async (work) => {
    if (x.actor) {
      const { userId: actorId, clientId } = x.actor;
      recordImpersonation(work, {
        subjectId: subject.userId,
        subjectOrgId: user.orgId,
        actorId,
        clientId,
        sessionId: subject.sessionId,
      });
    }
    return requested === TOKEN_TYPES.idToken ? issueIdTokenOnly(work, x) : issueTokens(work, x, requested);
  });
}

const ACTOR_TYPES: string[] = [TOKEN_TYPES.accessToken, TOKEN_TYPES.idToken];
const REQUESTED_TYPES: string[] = [TOKEN_TYPES.accessToken, TOKEN_TYPES.jwt, TOKEN_TYPES.idToken];

/** The parameters and token types of the matrix above, checked before any token is read; returns the requested type. */
function checkRequest(r: ExchangeRequest): string {
  if (r.resource !== undefined) throw invalidRequest('resource is not supported: name the target with audience');
  if (!r.subjectToken) throw invalidRequest('subject_token is missing');
  if (!r.subjectTokenType) throw invalidRequest('subject_token_type is missing');
  if (r.actorToken !== undefined && !r.actorTokenType)
    throw invalidRequest('actor_token_type is required with actor_token');
  if (r.actorTokenType !== undefined && r.actorToken === undefined)
    throw invalidRequest('actor_token_type without actor_token');
  checkSubjectType(r.subjectTokenType, r.actorToken !== undefined);
  if (r.actorTokenType !== undefined && !ACTOR_TYPES.includes(r.actorTokenType)) {
    throw invalidRequest(`actor_token_type ${r.actorTokenType} is not allowed: use an access token or an ID token`);
  }
  const requested = r.requestedTokenType ?? TOKEN_TYPES.accessToken;
  if (!REQUESTED_TYPES.includes(requested)) throw invalidRequest(`requested_token_type ${requested} is not supported`);
  return requested;
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

/** The subject and the actor from their tokens (checkRequest has checked that both are given with their types). */
async function readParties(ctx: Ctx, env: OidcEnv, r: ExchangeRequest): Promise<{ subject: Party; actor?: Party }> {
  const subject = await readParty(ctx, env, r.client, r.subjectToken!, r.subjectTokenType!, 'subject_token');
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
  return { subject, actor };
}

/** The audiences the tokens carried, which must name the caller: it may only exchange what was issued for it. */
function availableAudience(client: OidcClient, subject: Party, actor: Party | undefined): string[] {
  // the API stays out of a token for a client that is not an API client, whatever the tokens carried
  const available = grantableAudience(client, [...new Set([...subject.audience, ...(actor?.audience ?? [])])]);
  // as introspection would show it
  if (!available.includes(client.clientId) && !available.includes(client.projectId)) {
    throw invalidGrant('the tokens were not issued for this client (it is not in their audience)');
  }
  return available;
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
  // carried it (and the client may refresh: see refreshTokenOf).
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

/** requested_token_type id_token: the ID token is the issued token, of token_type N_A (RFC 8693 §2.2.1). */
async function issueIdTokenOnly(work: UnitOfWork, x: Exchange): Promise<TokenResponse> {
  return tokenResponse({
    issued: { token: await idToken(work, x), expiresIn: x.settings.idTokenLifetimeSeconds },
    tokenType: 'N_A',
    issuedTokenType: TOKEN_TYPES.idToken,
    scopes: x.scopes,
  });
}

/** An access token (a JWT when requested so), a refresh token when refreshTokenOf allows, an ID token with openid. */
async function issueTokens(work: UnitOfWork, x: Exchange, requested: string): Promise<TokenResponse> {
  const { client, dpopJkt } = x.request;
  const refresh = await refreshTokenOf(work, x);
  const at = await issueAccessToken(work, x.env, {
    format: requested === TOKEN_TYPES.jwt ? 'jwt' : 'opaque',
    userId: x.user.id,
    orgId: x.user.orgId,
    clientId: client.clientId,
    projectId: client.projectId,
    scopes: x.scopes.filter((s) => s !== 'offline_access'),
    audience: x.audience,
    lifetimeSeconds: x.settings.accessTokenLifetimeSeconds,
    grantId: refresh?.grantId ?? null,
    sessionId: x.subject.sessionId,
    refreshTokenId: refresh?.id ?? null,
    actor: x.actor,
    jkt: dpopJkt,
  });
  return tokenResponse({
    issued: at,
    tokenType: tokenTypeOf(dpopJkt),
    issuedTokenType: requested,
    scopes: x.scopes,
    refreshToken: refresh?.token,
    idToken: x.scopes.includes('openid') ? await idToken(work, x, at.token) : undefined,
  });
}

/** A new grant and its refresh token, when offline_access was granted and the client may refresh; else none. */
async function refreshTokenOf(
  work: UnitOfWork,
  x: Exchange,
): Promise<{ token: string; id: string; grantId: string } | undefined> {
  const { client, refreshJkt } = x.request;
  if (!x.scopes.includes('offline_access') || !client.oidc?.grantTypes.includes('REFRESH_TOKEN')) return undefined;
  const { user, subject, scopes, settings } = x;
  const grant = await createGrant(work, {
    sessionId: subject.sessionId,
    userId: user.id,
    orgId: user.orgId,
    clientId: client.clientId,
    applicationId: client.applicationId,
    projectId: client.projectId,
    scopes,
    audience: x.audience,
    authTime: subject.authTime,
    amr: subject.amr,
    absoluteExpiresAt: new Date(Date.now() + settings.refreshTokenAbsoluteSeconds * 1000),
    actor: x.actor,
  });
  const refresh = await issueRefreshToken(work, {
    grantId: grant.id,
    clientId: client.clientId,
    userId: user.id,
    orgId: user.orgId,
    scopes,
    idleSeconds: settings.refreshTokenIdleSeconds,
    absoluteExpiresAt: grant.absoluteExpiresAt,
    jkt: refreshJkt,
  });
  return { token: refresh.token, id: refresh.id, grantId: grant.id };
}

/** The subject's ID token; with the access token it comes with, user claims only on id_token_userinfo_assertion. */
function idToken(work: UnitOfWork, x: Exchange, accessToken?: string): Promise<string> {
  const { client } = x.request;
  const oidc = client.oidc;
  return buildIdToken(work, x.env, {
    user: x.user,
    clientId: client.clientId,
    projectId: client.projectId,
    audience: x.audience,
    scopes: x.scopes,
    lifetimeSeconds: x.settings.idTokenLifetimeSeconds,
    authTime: x.subject.authTime,
    amr: x.subject.amr,
    sessionId: x.subject.sessionId,
    nonce: x.subject.nonce,
    accessToken,
    includeUserClaims: !accessToken || !!oidc?.idTokenUserinfoAssertion,
    roleClaims: { projectAssertsRoles: client.project.roleAssertion, appAllows: !!oidc?.idTokenRoleAssertion },
    actor: x.actor,
  });
}
