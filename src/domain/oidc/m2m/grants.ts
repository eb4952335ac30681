import { MACHINE_SIGN_IN, maySignIn } from '../../session/may-sign-in';
import type { Ctx } from '../../context';
import type { OidcEnv } from '../env';
import { invalidGrant } from '../oauth-errors';
import { instanceSettings } from '../settings';
import { type TokenResponse, tokenResponse, tokenTypeOf } from '../token-issuance';
import { withSigningKey } from '../web-keys';
import { verifyMachineAssertion } from './assertion';
import { type MachineUser, machineUser } from './machines';
import { machineScopes } from './scopes';
import { issueMachineAccessToken, issueMachineIdToken, keyCredential, secretCredential } from './tokens';

async function issue(
  ctx: Ctx,
  env: OidcEnv,
  m: MachineUser,
  p: {
    clientId: string;
    rawScope: string | undefined;
    credential: string;
    withIdToken: boolean;
    resources?: string[];
    /** RFC 9449: the DPoP key the access token is bound to */
    jkt?: string;
  },
): Promise<TokenResponse> {
  const [settings, granted] = await Promise.all([
    instanceSettings(ctx, ctx.instanceId),
    machineScopes(ctx, m.user.id, p.rawScope),
  ]);
  const scopes = granted.scopes;
  // RFC 8707: with `resource` the audience is exactly the requested resource URIs
  const audience = p.resources ?? granted.audience;
  const signs = m.accessTokenType === 'JWT' || (p.withIdToken && scopes.includes('openid'));
  if (signs) env = await withSigningKey(ctx, env);
  const at = issueMachineAccessToken(env, m, {
    clientId: p.clientId,
    scopes,
    audience,
    credential: p.credential,
    lifetimeSeconds: settings.accessTokenLifetimeSeconds,
    jkt: p.jkt,
  });
  const idToken =
    p.withIdToken && scopes.includes('openid')
      ? issueMachineIdToken(env, m, {
          clientId: p.clientId,
          scopes,
          audience,
          lifetimeSeconds: settings.idTokenLifetimeSeconds,
          accessToken: at.token,
        })
      : undefined;
  return tokenResponse({ issued: at, tokenType: tokenTypeOf(p.jkt), scopes, idToken });
}

/**
 * Client credentials (spec §4.3): the machine user authenticated with its username (client id) and
 * client secret; an access token in its access_token_type, no ID token, no refresh token. With
 * `resource` (RFC 8707, resolved by the caller) the audience is exactly those resource URIs.
 */
export async function clientCredentialsTokens(
  ctx: Ctx,
  env: OidcEnv,
  userId: string,
  clientId: string,
  rawScope: string | undefined,
  resources?: string[],
  jkt?: string,
): Promise<TokenResponse> {
  const m = await machineUser(ctx, userId);
  if (!m || !maySignIn(m, MACHINE_SIGN_IN)) throw invalidGrant('the service user is not active');
  return issue(ctx, env, m, {
    clientId,
    rawScope,
    credential: secretCredential(m.secretHash),
    withIdToken: false,
    resources,
    jkt,
  });
}

/**
 * JWT profile (RFC 7523 §2.1): the assertion signed with one of the machine user's keys
 * authenticates it; an access token in its access_token_type, and an ID token of the service user
 * when `openid` is in scope. The tokens' client is the client that authenticated, if one did, else
 * the user id (the assertion's issuer).
 */
export async function jwtProfileTokens(
  ctx: Ctx,
  env: OidcEnv,
  assertion: string,
  rawScope: string | undefined,
  clientId: string | undefined,
  jkt?: string,
): Promise<TokenResponse> {
  const audiences = [env.issuer, `${env.issuer}/`, `${env.issuer}/oauth/v2/token`];
  const { machine, keyId } = await verifyMachineAssertion(ctx, assertion, audiences, env.assertionMaxLifetimeS);
  return issue(ctx, env, machine, {
    clientId: clientId ?? machine.user.id,
    rawScope,
    credential: keyCredential(keyId),
    withIdToken: true,
    jkt,
  });
}
