import { firstFactorAt } from '../session/factors';
import { refusalFor } from './user-access';
import type { Db } from '../../db/client';
import { findProject } from '../project/access';
import type { Ctx } from '../context';
import { execute } from '../execute';
import { getSession } from '../session/sessions';
import type { AuthRequest } from './auth-requests';
import { completeAuthRequest } from './auth-requests';
import { type OidcClient, projectClientIds } from './clients';
import { resolveClient } from './client-metadata/resolve';
import { createCode } from './codes';
import type { OidcEnv } from './env';
import { createSessionGrant } from './grants';
import { essentialAcrValues, idTokenRequests, requestedClaimNames, requestedSubject } from './claims-request';
import { buildIdToken, claimUser, issueAccessToken } from './issue';
import { acrMeeting } from '../policy/acr';
import { API_AUDIENCE, API_AUDIENCE_SCOPE, audienceProjects } from './scopes';
import { grantableScopes } from './api-clients';
import { instanceSettings } from './settings';
import { accessTokenFormat, accessTokenRoleClaims } from './token-issuance';
import { withSigningKey } from './web-keys';

/** What goes back to the client's redirect URI (success parameters or an OAuth error). */
export type AuthorizeResult =
  | { ok: true; request: AuthRequest; params: Record<string, string> }
  | { ok: false; request: AuthRequest; error: string; description: string };

/**
 * The token audience: the client's project (its client ids and id) plus the API (for an API client
 * only: api-clients.ts) and projects added by the reserved audience scopes.
 */
export async function tokenAudience(db: Db, client: OidcClient, scopes: string[]): Promise<string[]> {
  const aud = [client.clientId, ...client.audience.filter((a) => a !== client.clientId)];
  if (grantableScopes(client, scopes).includes(API_AUDIENCE_SCOPE)) aud.push(API_AUDIENCE);
  for (const projectId of audienceProjects(scopes)) {
    if (aud.includes(projectId) || projectId === 'api') continue;
    const ids = await projectClientIds(db, projectId);
    if (!(await findProject(db, projectId))) continue;
    for (const id of [...ids, projectId]) if (!aud.includes(id)) aud.push(id);
  }
  return aud;
}

/**
 * Answers an auth request whose session (or error) is set: exactly once. Creates the grant and the
 * code, or for the implicit flow the ID token (and access token). The §2.4 rule: an ID token issued
 * together with an access token carries no profile/email/phone/address claims unless the application
 * sets id_token_userinfo_assertion.
 */
export async function answerAuthRequest(
  ctx: Ctx,
  env: OidcEnv,
  requestId: string,
): Promise<AuthorizeResult | undefined> {
  const request = await completeAuthRequest(ctx, requestId);
  if (!request) return undefined;
  const fail = (error: string, description: string): AuthorizeResult => ({ ok: false, request, error, description });
  if (request.error) return fail(request.error, request.errorDescription ?? '');
  if (!request.sessionId) return fail('login_required', 'no authenticated session');
  const session = await getSession(ctx.db, request.sessionId);
  if (!session?.userId) return fail('login_required', 'the session has ended');
  const { client } = await resolveClient(
    { db: ctx.db, runtime: ctx.runtime, instanceId: ctx.instanceId, issuer: env.issuer },
    request.clientId,
  );
  if (!client?.active || !client.oidc) return fail('unauthorized_client', 'the application is not active');
  const user = await claimUser(ctx.db, session.userId);
  if (user?.type !== 'HUMAN') return fail('access_denied', 'the user is not active');
  if (request.orgId && user.orgId !== request.orgId)
    return fail('access_denied', 'the user does not belong to the requested organization');
  const refusal = await refusalFor(ctx.db, user, client);
  if (refusal) return fail('access_denied', refusal);
  // OIDC Core §5.5.1: a sub value names the only user the request may be answered for, whoever signed in
  const subject = requestedSubject(request.claims);
  if (subject !== undefined && subject !== user.id)
    return fail('access_denied', 'the signed-in user is not the subject the claims parameter names');
  // §5.5.1.1: an essential acr the authentication does not meet is a failed authentication
  if (!acrMeeting(session.amr, essentialAcrValues(request.claims)))
    return fail('access_denied', 'the authentication does not meet the essential acr of the claims parameter');
  const settings = await instanceSettings(ctx, ctx.instanceId);
  // RFC 8707: resources asked for at authorize are the whole audience of the grant's tokens
  const audience = request.resource?.length ? request.resource : await tokenAudience(ctx.db, client, request.scopes);
  const oidc = client.oidc;
  env = await withSigningKey(ctx, env);
  const params = await execute({ ...ctx, service: 'oidc/authorize' }, async (work) => {
    const grant = await createSessionGrant(work, {
      session: { id: session.id, amr: session.amr, authTime: firstFactorAt(session) ?? null },
      user,
      client,
      scopes: request.scopes,
      audience,
      refreshTokenAbsoluteSeconds: settings.refreshTokenAbsoluteSeconds,
      claims: request.claims,
    });
    if (request.responseType === 'code') {
      const code = await createCode(work, {
        grantId: grant.id,
        clientId: client.clientId,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        nonce: request.nonce,
        dpopJkt: request.dpopJkt,
      });
      return { code } as Record<string, string>;
    }
    const out: Record<string, string> = {};
    let accessToken: string | undefined;
    if (request.responseType === 'id_token token') {
      const accessScopes = request.scopes.filter((s) => s !== 'offline_access');
      const at = await issueAccessToken(work, env, {
        format: accessTokenFormat(client),
        userId: user.id,
        orgId: user.orgId,
        clientId: client.clientId,
        projectId: client.projectId,
        scopes: accessScopes,
        audience,
        lifetimeSeconds: settings.accessTokenLifetimeSeconds,
        grantId: grant.id,
        sessionId: session.id,
        extraClaims: await accessTokenRoleClaims(work, client, { userId: user.id, scopes: accessScopes, audience }),
        userinfoClaims: requestedClaimNames(request.claims, 'userinfo'),
      });
      accessToken = at.token;
      out.access_token = at.token;
      out.token_type = 'Bearer';
      out.expires_in = String(at.expiresIn);
      out.scope = accessScopes.join(' ');
    }
    out.id_token = await buildIdToken(work, env, {
      user,
      clientId: client.clientId,
      projectId: client.projectId,
      audience,
      scopes: request.scopes,
      lifetimeSeconds: settings.idTokenLifetimeSeconds,
      authTime: firstFactorAt(session) ?? null,
      amr: session.amr,
      sessionId: session.id,
      nonce: request.nonce,
      accessToken,
      includeUserClaims: !accessToken || oidc.idTokenUserinfoAssertion,
      roleClaims: { projectAssertsRoles: client.project.roleAssertion, appAllows: oidc.idTokenRoleAssertion },
      requested: idTokenRequests(request.claims),
    });
    if (!out.scope) out.scope = request.scopes.join(' ');
    return out;
  });
  return { ok: true, request, params };
}
