import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors';
import type { OAuthProviderConfig, OAuthProviderSecrets } from '../../../src/domain/idp/oauth/config';
import * as flow from '../../../src/domain/idp/oauth/flow';
import { DEFAULT_REDIRECT, signInAt, startUpstreamOidc, type UpstreamOidc } from '../../helpers/upstream-oidc';

// The fake upstreams run on loopback, which only a server in development mode may reach.
const authorizationUrl = (...[c, s, p, o]: Parameters<typeof flow.authorizationUrl>) =>
  flow.authorizationUrl(c, s, p, { development: true, ...o });
const completeAuthorization = (...[c, s, p, o]: Parameters<typeof flow.completeAuthorization>) =>
  flow.completeAuthorization(c, s, p, { development: true, ...o });

let upstream: UpstreamOidc;
const verifier = (n: number) => `verifier-${n}-`.padEnd(64, 'x');

beforeAll(async () => {
  upstream = await startUpstreamOidc();
  upstream.addAccount({
    sub: 'alice-1',
    email: 'alice@example.com',
    email_verified: true,
    given_name: 'Alice',
    family_name: 'Liddell',
    preferred_username: 'alice',
  });
  upstream.addAccount({ sub: 'bob-2', email: 'bob@example.com', email_verified: false, preferred_username: 'bob' });
  upstream.addAccount(
    { sub: 'carol-3', email: 'carol@example.com', email_verified: true, given_name: 'Carol' },
    { given_name: 'Caroline', locale: 'fr-CH' },
  );
});
afterAll(() => upstream?.stop());

const oidcConfig = (over: Partial<OAuthProviderConfig> = {}): OAuthProviderConfig => ({
  protocol: 'oidc',
  issuer: upstream.issuer,
  clientId: upstream.client.clientId,
  clientAuth: 'client_secret_basic',
  scopes: ['openid', 'email', 'profile'],
  usePkce: true,
  useUserinfo: false,
  mapping: {},
  ...over,
});
const basicSecrets = (): OAuthProviderSecrets => ({ clientSecret: upstream.client.clientSecret });

/** Runs the whole sign-in: our URL, the user at the upstream, the callback back to us. */
async function signIn(config: OAuthProviderConfig, secrets: OAuthProviderSecrets, login: string, n = 1) {
  const start = { redirectUri: DEFAULT_REDIRECT, state: `state-${n}`, nonce: `nonce-${n}`, codeVerifier: verifier(n) };
  const { url } = await authorizationUrl(config, secrets, start);
  const callbackParams = await signInAt(url, login);
  return completeAuthorization(config, secrets, { ...start, callbackParams });
}

describe('OpenID Connect code flow against a real upstream', () => {
  it('signs Alice in and maps her standard claims', async () => {
    const { user, tokens } = await signIn(oidcConfig(), basicSecrets(), 'alice-1');
    expect(user).toMatchObject({
      id: 'alice-1',
      username: 'alice',
      email: 'alice@example.com',
      emailVerified: true,
      givenName: 'Alice',
      familyName: 'Liddell',
    });
    expect(user.raw.iss).toBe(upstream.issuer);
    expect(tokens.idToken).toMatch(/^ey/);
    expect(tokens.accessToken).toBeTruthy();
    expect(tokens.expiresAt).toBeGreaterThan(Date.now() / 1000);
  });

  it('sends PKCE S256 with a nonce, and the upstream (which requires PKCE) accepts it', async () => {
    const { url } = await authorizationUrl(oidcConfig(), basicSecrets(), {
      redirectUri: DEFAULT_REDIRECT,
      state: 's',
      nonce: 'n',
      codeVerifier: verifier(9),
      loginHint: 'alice',
    });
    const q = new URL(url).searchParams;
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('nonce')).toBe('n');
    expect(q.get('login_hint')).toBe('alice');
    expect(new URL(url).origin).toBe(upstream.url);
  });

  it('without PKCE the upstream refuses the request, so PKCE is really what it checks', async () => {
    const { url } = await authorizationUrl(oidcConfig({ usePkce: false }), basicSecrets(), {
      redirectUri: DEFAULT_REDIRECT,
      state: 's',
      nonce: 'n',
      codeVerifier: verifier(8),
    });
    const back = await signInAt(url, 'alice-1');
    expect(back.get('error')).toBe('invalid_request');
  });

  it('authenticates with private_key_jwt', async () => {
    const config = oidcConfig({ clientId: upstream.jwtClient.clientId, clientAuth: 'private_key_jwt' });
    const { user } = await signIn(config, { privateKey: upstream.jwtClient.privateKey }, 'alice-1', 2);
    expect(user.id).toBe('alice-1');
  });

  it('a wrong client secret is refused by the upstream: unauthenticated, naming the token endpoint error', async () => {
    const err = await signIn(oidcConfig(), { clientSecret: 'wrong' }, 'alice-1', 3).catch((e) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'unauthenticated', key: 'Errors.IdP.OAuth.InvalidResponse' });
    expect(err.message).toContain('invalid_client');
  });

  it('useUserinfo merges userinfo claims over the ID token', async () => {
    const plain = await signIn(oidcConfig(), basicSecrets(), 'carol-3', 4);
    expect(plain.user.givenName).toBe('Carol');
    expect(plain.user.preferredLanguage).toBeUndefined();
    const merged = await signIn(oidcConfig({ useUserinfo: true }), basicSecrets(), 'carol-3', 5);
    expect(merged.user.givenName).toBe('Caroline');
    expect(merged.user.preferredLanguage).toBe('fr-CH');
  });

  it('email_verified false stays unverified; a custom mapping picks other claims', async () => {
    const { user } = await signIn(
      oidcConfig({ mapping: { displayName: 'preferred_username' } }),
      basicSecrets(),
      'bob-2',
      6,
    );
    expect(user).toMatchObject({ id: 'bob-2', email: 'bob@example.com', emailVerified: false, displayName: 'bob' });
  });

  it('generic OAuth 2.0 against the same upstream: endpoints, userinfo, idAttribute sub', async () => {
    const config: OAuthProviderConfig = {
      protocol: 'oauth',
      authorizationEndpoint: `${upstream.url}/auth`,
      tokenEndpoint: `${upstream.url}/token`,
      userinfoEndpoint: `${upstream.url}/me`,
      clientId: upstream.client.clientId,
      clientAuth: 'client_secret_basic',
      // the upstream's userinfo needs openid; its ID token is ignored in plain OAuth mode
      scopes: ['openid', 'email', 'profile'],
      usePkce: true,
      useUserinfo: true,
      idAttribute: 'sub',
      mapping: {},
    };
    const { user } = await signIn(config, basicSecrets(), 'alice-1', 7);
    expect(user).toMatchObject({ id: 'alice-1', email: 'alice@example.com', emailVerified: true, username: 'alice' });
    expect(user.raw.iss).toBeUndefined();
  });
});

describe('attacks and failures at the callback', () => {
  it('a callback whose state differs is refused before the code is used', async () => {
    const start = { redirectUri: DEFAULT_REDIRECT, state: 'mine', nonce: 'n1', codeVerifier: verifier(10) };
    const { url } = await authorizationUrl(oidcConfig(), basicSecrets(), start);
    const callbackParams = await signInAt(url, 'alice-1');
    const err = await completeAuthorization(oidcConfig(), basicSecrets(), {
      ...start,
      state: 'theirs',
      callbackParams,
    }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'unauthenticated', key: 'Errors.IdP.OAuth.StateMismatch' });
    // the code was not spent: the real callback still completes
    const ok = await completeAuthorization(oidcConfig(), basicSecrets(), { ...start, callbackParams });
    expect(ok.user.id).toBe('alice-1');
  });

  it('an ID token with another nonce is refused', async () => {
    const start = { redirectUri: DEFAULT_REDIRECT, state: 's11', nonce: 'nonce-at-start', codeVerifier: verifier(11) };
    const { url } = await authorizationUrl(oidcConfig(), basicSecrets(), start);
    const callbackParams = await signInAt(url, 'alice-1');
    const err = await completeAuthorization(oidcConfig(), basicSecrets(), {
      ...start,
      nonce: 'another-nonce',
      callbackParams,
    }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'unauthenticated', key: 'Errors.IdP.OAuth.InvalidResponse' });
    expect(err.message).toBe("the upstream ID token's nonce does not match");
  });

  it('a code issued to another client cannot be redeemed as ours', async () => {
    const other = oidcConfig({ clientId: upstream.otherClient.clientId });
    const start = { redirectUri: DEFAULT_REDIRECT, state: 's12', nonce: 'n12', codeVerifier: verifier(12) };
    const { url } = await authorizationUrl(other, { clientSecret: upstream.otherClient.clientSecret }, start);
    const callbackParams = await signInAt(url, 'alice-1');
    const err = await completeAuthorization(oidcConfig(), basicSecrets(), { ...start, callbackParams }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'unauthenticated', key: 'Errors.IdP.OAuth.InvalidResponse' });
    expect(err.message).toContain('invalid_grant');
  });

  it('a wrong PKCE verifier makes the upstream refuse the code', async () => {
    const start = { redirectUri: DEFAULT_REDIRECT, state: 's13', nonce: 'n13', codeVerifier: verifier(13) };
    const { url } = await authorizationUrl(oidcConfig(), basicSecrets(), start);
    const callbackParams = await signInAt(url, 'alice-1');
    const err = await completeAuthorization(oidcConfig(), basicSecrets(), {
      ...start,
      codeVerifier: verifier(14),
      callbackParams,
    }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'unauthenticated' });
    expect(err.message).toContain('invalid_grant');
  });

  it('a user who refuses at the upstream: error=access_denied → unauthenticated with the upstream error', async () => {
    const start = { redirectUri: DEFAULT_REDIRECT, state: 's15', nonce: 'n15', codeVerifier: verifier(15) };
    const { url } = await authorizationUrl(oidcConfig(), basicSecrets(), start);
    const callbackParams = await signInAt(url, 'alice-1', { refuse: true });
    expect(callbackParams.get('error')).toBe('access_denied');
    const err = await completeAuthorization(oidcConfig(), basicSecrets(), { ...start, callbackParams }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'unauthenticated', key: 'Errors.IdP.OAuth.UpstreamError' });
    expect(err.message).toContain('access_denied');
  });
});
