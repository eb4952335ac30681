import { refusalFor } from './user-access';
import type { Ctx } from '../context';
import { execute, type UnitOfWork } from '../execute';
import { maybeRoleClaims } from './claims';
import { idTokenRequests, requestedClaimNames } from './claims-request';
import type { OidcClient } from './clients';
import type { OidcEnv } from './env';
import { type Grant, grantActor } from './grants';
import { buildIdToken, claimUser, issueAccessToken, issueRefreshToken } from './issue';
import { invalidGrant } from './oauth-errors';
import { instanceSettings } from './settings';
import { withSigningKey } from './web-keys';

/** The token endpoint's JSON answer (spec §2.5). */
export interface TokenResponse {
  access_token: string;
  /** DPoP when the access token is bound to a DPoP key (RFC 9449 §5) */
  token_type: 'Bearer' | 'DPoP' | 'N_A';
  expires_in: number;
  scope: string;
  id_token?: string;
  refresh_token?: string;
  issued_token_type?: string;
}

/** RFC 9449 §5: `DPoP` for an access token bound to a proof's key, else `Bearer`. */
export const tokenTypeOf = (jkt: string | null | undefined): 'Bearer' | 'DPoP' => (jkt ? 'DPoP' : 'Bearer');

/**
 * The token endpoint's answer from what a grant issued, the same for every grant: the access token (or,
 * in a token exchange, the token issued in its place), its type, the granted scopes and the tokens that
 * come with it.
 */
export function tokenResponse(p: {
  issued: { token: string; expiresIn: number };
  tokenType: TokenResponse['token_type'];
  scopes: string[];
  /** RFC 8693 §2.2.1: what a token exchange issued */
  issuedTokenType?: string;
  refreshToken?: string;
  idToken?: string;
}): TokenResponse {
  const out: TokenResponse = {
    access_token: p.issued.token,
    token_type: p.tokenType,
    ...(p.issuedTokenType === undefined ? {} : { issued_token_type: p.issuedTokenType }),
    expires_in: p.issued.expiresIn,
    scope: p.scopes.join(' '),
  };
  if (p.refreshToken !== undefined) out.refresh_token = p.refreshToken;
  if (p.idToken !== undefined) out.id_token = p.idToken;
  return out;
}

export const accessTokenFormat = (client: OidcClient): 'jwt' | 'opaque' =>
  client.oidc?.accessTokenType === 'JWT' ? 'jwt' : 'opaque';

/**
 * Role claims of a JWT access token, the same in every flow that issues one to a user (code, refresh,
 * implicit): when a role scope is requested or the project asserts roles, and the application sets
 * access_token_role_assertion. Opaque tokens carry none (introspection answers with the roles).
 */
export async function accessTokenRoleClaims(
  work: UnitOfWork,
  client: OidcClient,
  p: { userId: string; scopes: string[]; audience: string[] },
): Promise<Record<string, unknown> | undefined> {
  if (accessTokenFormat(client) !== 'jwt') return undefined;
  return maybeRoleClaims(work.tx, {
    userId: p.userId,
    scopes: p.scopes,
    projectId: client.projectId,
    audience: p.audience,
    projectAssertsRoles: client.project.roleAssertion,
    placeAllows: !!client.oidc?.accessTokenRoleAssertion,
  });
}

/**
 * Issues the tokens of a user grant (code exchange, refresh): an access token in the application's
 * format, a refresh token when asked for, and an ID token when `openid` is in scope. Because an access
 * token is always issued here, the ID token carries profile/email/phone/address claims only with the
 * application's id_token_userinfo_assertion (§2.4). One transaction.
 */
export async function issueGrantTokens(
  ctx: Ctx,
  env: OidcEnv,
  p: {
    client: OidcClient;
    grant: Grant;
    scopes: string[];
    refreshScopes: string[];
    nonce: string | null;
    withRefresh: boolean;
    previousRefreshTokenId?: string;
    /** the access token's audience when `resource` narrowed it at this request (RFC 8707); else the grant's */
    audience?: string[];
    /** RFC 9449: the key of this request's DPoP proof; the access token is bound to it */
    dpopJkt?: string;
    /** RFC 9449 §5: the key the new refresh token is bound to (public clients), else unbound */
    refreshJkt?: string;
  },
): Promise<TokenResponse> {
  const { client, grant } = p;
  const oidc = client.oidc;
  const [settings, user] = await Promise.all([instanceSettings(ctx, ctx.instanceId), claimUser(ctx.db, grant.userId)]);
  env = await withSigningKey(ctx, env);
  if (!user) throw invalidGrant('the user is not active');
  // Checked again at every code exchange and refresh: a deactivated organization, application or
  // project, or a removed authorization, ends the grant.
  const refusal = await refusalFor(ctx.db, user, client);
  if (refusal) throw invalidGrant(refusal);
  return execute(ctx, async (work) => {
    let refresh: { token: string; id: string } | undefined;
    if (p.withRefresh) {
      refresh = await issueRefreshToken(work, {
        grantId: grant.id,
        clientId: client.clientId,
        userId: user.id,
        orgId: user.orgId,
        scopes: p.refreshScopes,
        idleSeconds: settings.refreshTokenIdleSeconds,
        absoluteExpiresAt: grant.absoluteExpiresAt,
        jkt: p.refreshJkt,
      });
    }
    const format = accessTokenFormat(client);
    const audience = p.audience ?? grant.audience;
    const extraClaims = await accessTokenRoleClaims(work, client, { userId: user.id, scopes: p.scopes, audience });
    const accessScopes = p.scopes.filter((s) => s !== 'offline_access');
    const at = await issueAccessToken(work, env, {
      format,
      userId: user.id,
      orgId: user.orgId,
      clientId: client.clientId,
      projectId: grant.projectId,
      scopes: accessScopes,
      audience,
      lifetimeSeconds: settings.accessTokenLifetimeSeconds,
      grantId: grant.id,
      sessionId: grant.sessionId,
      refreshTokenId: refresh?.id ?? null,
      extraClaims,
      actor: grantActor(grant),
      jkt: p.dpopJkt,
      userinfoClaims: requestedClaimNames(grant.claims, 'userinfo'),
    });
    const idToken = p.scopes.includes('openid')
      ? await buildIdToken(work, env, {
          user,
          clientId: client.clientId,
          projectId: grant.projectId,
          audience: grant.audience,
          scopes: p.scopes,
          lifetimeSeconds: settings.idTokenLifetimeSeconds,
          authTime: grant.authTime,
          amr: grant.amr,
          sessionId: grant.sessionId,
          nonce: p.nonce,
          accessToken: at.token,
          includeUserClaims: !!oidc?.idTokenUserinfoAssertion,
          roleClaims: { projectAssertsRoles: client.project.roleAssertion, appAllows: !!oidc?.idTokenRoleAssertion },
          actor: grantActor(grant),
          requested: idTokenRequests(grant.claims),
        })
      : undefined;
    return tokenResponse({
      issued: at,
      tokenType: tokenTypeOf(p.dpopJkt),
      scopes: p.scopes,
      refreshToken: refresh?.token,
      idToken,
    });
  });
}
