import * as client from 'openid-client';
import { addOidcApp, addProject, markApiClient, REDIRECT } from './apps';
import { Browser } from './browser';
import type { TestServer } from './server';
import type { OidcAppConfig } from '../../src/db/schema/applications';

/** An openid-client Configuration for the app against the test server (http allowed). */
export async function rp(
  server: TestServer,
  clientId: string,
  secretOrMetadata?: string | Partial<client.ClientMetadata>,
  auth?: client.ClientAuth,
) {
  return client.discovery(new URL(server.url), clientId, secretOrMetadata, auth, {
    execute: [client.allowInsecureRequests],
  });
}

/**
 * A relying party on a new project and OIDC app of the default organization: what a test of the
 * sign-in needs before its first request. `apiClient`: an instance administrator marks it an API
 * client, so that its users' tokens may carry the API audience.
 */
export async function addRelyingParty(
  server: TestServer,
  opts: { oidc?: Partial<OidcAppConfig>; basicAuth?: boolean; apiClient?: boolean } = {},
): Promise<client.Configuration> {
  const app = await addOidcApp(server, await addProject(server), opts.oidc);
  if (opts.apiClient) await markApiClient(server, app.applicationId);
  return opts.basicAuth
    ? rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!))
    : rp(server, app.clientId, app.clientSecret);
}

/** An authorization URL to REDIRECT with a fresh PKCE pair; `params` add to or override the defaults. */
export async function pkceAuthUrl(config: client.Configuration, params: Record<string, string>) {
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...params,
  });
  return { url: url.toString(), verifier };
}

/** Runs the code flow up to the code (password login in the tiny browser); returns what the exchange needs. */
export async function getCode(
  server: TestServer,
  config: client.Configuration,
  user: { username: string; password: string },
  extra: Record<string, string> = {},
  browser = new Browser(server.url),
) {
  const state = client.randomState();
  const { url, verifier } = await pkceAuthUrl(config, {
    scope: 'openid profile email offline_access',
    state,
    ...extra,
  });
  const landed = new URL(await browser.login(url, user.username, user.password));
  return { landed, verifier, state, browser, code: landed.searchParams.get('code')! };
}

/** Code flow all the way to tokens. */
export async function codeFlowTokens(
  server: TestServer,
  config: client.Configuration,
  user: { username: string; password: string },
  extra: Record<string, string> = {},
) {
  const r = await getCode(server, config, user, extra);
  const tokens = await client.authorizationCodeGrant(config, r.landed, {
    pkceCodeVerifier: r.verifier,
    expectedState: r.state,
    expectedNonce: extra.nonce,
  });
  return { ...r, tokens };
}

/**
 * A whole sign-in through the hosted login and the code exchange; answers the subject the ID token
 * names, or undefined when the sign-in fails anywhere (wrong password, unknown or ambiguous name).
 */
export async function signedInSubject(
  server: { url: string },
  config: client.Configuration,
  loginName: string,
  password: string,
  scope = 'openid',
) {
  try {
    const url = await new Browser(server.url).login(
      client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope }).toString(),
      loginName,
      password,
    );
    const tokens = await client.authorizationCodeGrant(config, new URL(url), { expectedState: client.skipStateCheck });
    return tokens.claims()?.sub;
  } catch {
    return undefined;
  }
}
