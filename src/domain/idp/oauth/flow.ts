import { createHash, timingSafeEqual } from 'node:crypto';
import * as client from 'openid-client';
import { DomainError, invalidArgument } from '../../errors';
import type { ExternalUser, UpstreamTokens } from '../external-user';
import { appleUserClaims } from './apple';
import { toExternalUser } from './claims';
import { isLoopbackHost, type OAuthProviderConfig, type OAuthProviderSecrets } from './config';
import { rememberKeys, type UpstreamOptions, upstreamClient } from './upstream-client';
import { INVALID_RESPONSE, upstreamFailure } from './upstream-errors';
import { fetchUserinfoObject, withGitHubEmail } from './userinfo';

export type { UpstreamOptions } from './upstream-client';

export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  nonce: string;
  /** PKCE code verifier (43–128 unreserved characters); its S256 challenge goes in the URL */
  codeVerifier: string;
  loginHint?: string;
}

export interface AuthorizationCallback {
  redirectUri: string;
  /** the query of the callback, or the form_post body */
  callbackParams: URLSearchParams;
  state: string;
  nonce: string;
  codeVerifier: string;
}

const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const isGitHub = (config: OAuthProviderConfig) =>
  config.template === 'github' || config.template === 'github_enterprise';

/** Where to send the user's browser to sign in at the upstream. */
export async function authorizationUrl(
  config: OAuthProviderConfig,
  secrets: OAuthProviderSecrets,
  p: AuthorizationRequest,
  opts: UpstreamOptions = {},
): Promise<{ url: string; responseMode?: 'form_post' }> {
  checkRequestValues(p);
  const c = await upstreamClient(config, secrets, opts);
  const params: Record<string, string> = {
    response_type: 'code',
    redirect_uri: p.redirectUri,
    scope: config.scopes.join(' '),
    state: p.state,
  };
  if (config.usePkce) {
    params.code_challenge = await client.calculatePKCECodeChallenge(p.codeVerifier);
    params.code_challenge_method = 'S256';
  }
  if (config.protocol === 'oidc') params.nonce = p.nonce;
  // GitHub calls the hint `login`
  if (p.loginHint) params[isGitHub(config) ? 'login' : 'login_hint'] = p.loginHint;
  // Apple returns the requested name and email only to a form_post redirect
  const formPost = config.template === 'apple' && config.scopes.some((s) => s === 'name' || s === 'email');
  if (formPost) params.response_mode = 'form_post';
  const url = client.buildAuthorizationUrl(c, params);
  if (url.protocol !== 'https:' && !isLoopbackHost(url.hostname)) {
    const msg = `the upstream's authorization endpoint ${url.origin} is not https`;
    throw new DomainError('failed_precondition', 'Errors.IdP.OAuth.InsecureEndpoint', msg);
  }
  return formPost ? { url: url.href, responseMode: 'form_post' } : { url: url.href };
}

/**
 * Finishes the sign-in when the upstream sends the browser back: checks state, exchanges the code,
 * validates the ID token (oidc), reads userinfo when configured, and maps the claims.
 */
export async function completeAuthorization(
  config: OAuthProviderConfig,
  secrets: OAuthProviderSecrets,
  p: AuthorizationCallback,
  opts: UpstreamOptions = {},
): Promise<{ user: ExternalUser; tokens: UpstreamTokens }> {
  checkRequestValues(p);
  const params = p.callbackParams;
  checkState(params.get('state'), p.state);
  checkNoError(params);
  if (!params.get('code')) throw invalid('the upstream callback carries no code');

  const c = await upstreamClient(config, secrets, opts);
  const tokens = await exchangeCode(c, config, p);
  const claims = await userClaims(c, config, tokens, params);
  rememberKeys(config, c, opts);
  const user = toExternalUser(config, claims);
  if (!user) {
    const idClaim = config.mapping.id ?? (config.protocol === 'oidc' ? 'sub' : config.idAttribute);
    throw invalid(`the upstream's answer has no user id (${idClaim})`);
  }
  return {
    user,
    tokens: {
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      idToken: tokens.id_token,
      expiresAt: tokens.expires_in === undefined ? undefined : Math.floor(Date.now() / 1000) + tokens.expires_in,
    },
  };
}

const invalid = (message: string) => new DomainError('unauthenticated', INVALID_RESPONSE, message);

function checkRequestValues(p: { state: string; nonce: string; codeVerifier: string }): void {
  if (!p.state || !p.nonce) throw invalidArgument('Errors.IdP.OAuth.Request', 'state and nonce are required');
  if (!PKCE_VERIFIER.test(p.codeVerifier)) {
    throw invalidArgument('Errors.IdP.OAuth.Request', 'codeVerifier must be 43 to 128 unreserved characters');
  }
}

/** The callback must answer our own request: its state equals the one we sent (compared in constant time). */
function checkState(returned: string | null, expected: string): void {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  if (returned === null || !timingSafeEqual(digest(returned), digest(expected))) {
    throw new DomainError(
      'unauthenticated',
      'Errors.IdP.OAuth.StateMismatch',
      'the upstream callback state does not match',
    );
  }
}

function checkNoError(params: URLSearchParams): void {
  const error = params.get('error');
  if (!error) return;
  // the description comes from whoever crafted the callback URL: shortened and without control characters
  const clean = (s: string) => s.replace(/[\p{Cc}]/gu, ' ').slice(0, 200);
  const description = params.get('error_description');
  const message = `the upstream answered ${clean(error)}${description ? `: ${clean(description)}` : ''}`;
  throw new DomainError('unauthenticated', 'Errors.IdP.OAuth.UpstreamError', message);
}

async function exchangeCode(c: client.Configuration, config: OAuthProviderConfig, p: AuthorizationCallback) {
  const oidc = config.protocol === 'oidc';
  const current = new URL(p.redirectUri);
  current.search = '';
  for (const [k, v] of p.callbackParams) {
    // plain OAuth has no issuer to hold an RFC 9207 `iss` against
    if (!oidc && k === 'iss') continue;
    current.searchParams.append(k, v);
  }
  try {
    return await client.authorizationCodeGrant(c, current, {
      pkceCodeVerifier: config.usePkce ? p.codeVerifier : undefined,
      expectedState: p.state,
      expectedNonce: oidc ? p.nonce : undefined,
      idTokenExpected: oidc,
    });
  } catch (err) {
    throw upstreamFailure(err, 'the code exchange');
  }
}

async function userClaims(
  c: client.Configuration,
  config: OAuthProviderConfig,
  tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
  params: URLSearchParams,
): Promise<Record<string, unknown>> {
  if (config.protocol === 'oauth') {
    const url = config.userinfoEndpoint ?? '';
    const user = await fetchUserinfoObject(c, tokens.access_token, url);
    return isGitHub(config) ? withGitHubEmail(c, tokens.access_token, url, user) : user;
  }
  const idToken = tokens.claims();
  if (!idToken) throw invalid('the upstream sent no ID token');
  let claims: Record<string, unknown> = { ...idToken };
  if (config.template === 'apple') claims = { ...appleUserClaims(params.get('user')), ...claims };
  if (config.useUserinfo) {
    try {
      // the userinfo answer must be about the ID token's subject
      const userinfo = await client.fetchUserInfo(c, tokens.access_token, idToken.sub);
      claims = { ...claims, ...userinfo };
    } catch (err) {
      throw upstreamFailure(err, 'the userinfo request');
    }
  }
  return claims;
}
