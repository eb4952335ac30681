import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportPKCS8, exportSPKI, generateKeyPair, importSPKI, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLE_ISSUER, appleClientSecret } from '../../../src/domain/idp/oauth/apple';
import { authorizationUrl, completeAuthorization } from '../../../src/domain/idp/oauth/flow';
import { fromTemplate } from '../../../src/domain/idp/oauth/templates';
import { type FakeUpstream, routedFetch, startFakeUpstream } from '../../helpers/upstream-oidc';

const start = {
  redirectUri: 'https://portcullis.example/idp/callback',
  state: 'state-1',
  nonce: 'nonce-1',
  codeVerifier: 'v'.repeat(43),
};

describe('templates', () => {
  it('Google: the accounts.google.com issuer with the OpenID scopes', () => {
    expect(fromTemplate({ template: 'google', clientId: 'g' })).toMatchObject({
      protocol: 'oidc',
      issuer: 'https://accounts.google.com',
      scopes: ['openid', 'profile', 'email'],
      usePkce: true,
    });
  });

  it('GitHub and GitHub Enterprise: OAuth endpoints, numeric id attribute, the email scope', () => {
    expect(fromTemplate({ template: 'github', clientId: 'gh' })).toMatchObject({
      protocol: 'oauth',
      authorizationEndpoint: 'https://github.com/login/oauth/authorize',
      tokenEndpoint: 'https://github.com/login/oauth/access_token',
      userinfoEndpoint: 'https://api.github.com/user',
      idAttribute: 'id',
      scopes: ['read:user', 'user:email'],
      mapping: { username: 'login' },
    });
    const ghe = fromTemplate({
      template: 'github_enterprise',
      clientId: 'ghe',
      authorizationEndpoint: 'https://git.corp.example/login/oauth/authorize',
      tokenEndpoint: 'https://git.corp.example/login/oauth/access_token',
      userEndpoint: 'https://git.corp.example/api/v3/user',
      scopes: ['read:user'],
    });
    expect(ghe).toMatchObject({
      template: 'github_enterprise',
      userinfoEndpoint: 'https://git.corp.example/api/v3/user',
    });
    expect(ghe.scopes).toEqual(['read:user']);
  });

  it('GitLab and self-hosted GitLab: discovery from the instance, userinfo on', () => {
    expect(fromTemplate({ template: 'gitlab', clientId: 'gl' })).toMatchObject({
      issuer: 'https://gitlab.com',
      useUserinfo: true,
    });
    expect(
      fromTemplate({ template: 'gitlab_self_hosted', clientId: 'gl', issuer: 'https://git.example/' }).issuer,
    ).toBe('https://git.example');
  });

  it('Entra ID: the issuer per tenant; emails vouched for only when the administrator says so', () => {
    expect(fromTemplate({ template: 'azure_ad', clientId: 'e', tenant: 'organizations' })).toMatchObject({
      issuer: 'https://login.microsoftonline.com/organizations/v2.0',
      emailVerifiedByProvider: false,
    });
    const tenant = fromTemplate({ template: 'azure_ad', clientId: 'e', tenant: 'contoso-id', emailVerified: true });
    expect(tenant.issuer).toBe('https://login.microsoftonline.com/contoso-id/v2.0');
    expect(tenant.emailVerifiedByProvider).toBe(true);
  });

  it('Apple: appleid.apple.com, name and email scopes, secret in the body', () => {
    expect(fromTemplate({ template: 'apple', clientId: 'com.example.web', teamId: 'T', keyId: 'K' })).toMatchObject({
      issuer: 'https://appleid.apple.com',
      scopes: ['openid', 'name', 'email'],
      clientAuth: 'client_secret_post',
    });
  });
});

describe('Sign in with Apple', () => {
  let apple: FakeUpstream;
  let keys: { pem: string; spki: string };
  beforeAll(async () => {
    apple = await startFakeUpstream({ issuer: APPLE_ISSUER, issuerPath: '/auth', publicOrigin: APPLE_ISSUER });
    const pair = await generateKeyPair('ES256', { extractable: true });
    keys = { pem: await exportPKCS8(pair.privateKey), spki: await exportSPKI(pair.publicKey) };
  });
  afterAll(() => apple?.stop());

  it('the client secret is an ES256 JWT from the team, about the client, for Apple, short-lived', async () => {
    const jwt = await appleClientSecret({ teamId: 'TEAM123', keyId: 'KEY456', privateKeyPem: keys.pem }, 'com.ex.web');
    const { payload, protectedHeader } = await jwtVerify(jwt, await importSPKI(keys.spki, 'ES256'), {
      issuer: 'TEAM123',
      audience: 'https://appleid.apple.com',
      subject: 'com.ex.web',
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: 'KEY456' });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBeLessThanOrEqual(15_777_000);
    const long = await appleClientSecret({ teamId: 'T', keyId: 'K', privateKeyPem: keys.pem }, 'c', 10 ** 9);
    const claims = JSON.parse(Buffer.from(long.split('.')[1], 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(15_777_000);
  });

  it('form_post: the secret JWT at the token endpoint, the name from `user`, email_verified "true"', async () => {
    // Apple's discovery lives at the issuer; the fake serves it under /auth, like Apple's endpoints
    const config = { ...fromTemplate({ template: 'apple', clientId: 'com.ex.web', teamId: 'TEAM', keyId: 'KID' }) };
    const secrets = { apple: { teamId: 'TEAM', keyId: 'KID', privateKeyPem: keys.pem } };
    const opts = {
      fetch: routedFetch({
        [`${APPLE_ISSUER}/.well-known`]: `${apple.url}/auth/.well-known`,
        [APPLE_ISSUER]: apple.url,
      }),
    };
    const { url, responseMode } = await authorizationUrl(config, secrets, start, opts);
    expect(responseMode).toBe('form_post');
    expect(new URL(url).searchParams.get('response_mode')).toBe('form_post');

    apple.idToken = {
      claims: { aud: 'com.ex.web', nonce: start.nonce, email: 'x@privaterelay.appleid.com', email_verified: 'true' },
    };
    const callbackParams = new URLSearchParams({
      code: 'c1',
      state: start.state,
      user: JSON.stringify({ name: { firstName: 'Ada', lastName: 'Lovelace' }, email: 'x@privaterelay.appleid.com' }),
    });
    const { user } = await completeAuthorization(config, secrets, { ...start, callbackParams }, opts);
    expect(user).toMatchObject({ givenName: 'Ada', familyName: 'Lovelace', emailVerified: true });
    const secret = apple.lastTokenRequest?.body.get('client_secret') ?? '';
    const { payload } = await jwtVerify(secret, await importSPKI(keys.spki, 'ES256'), { audience: APPLE_ISSUER });
    expect(payload).toMatchObject({ iss: 'TEAM', sub: 'com.ex.web' });
  });
});

describe('GitHub', () => {
  let server: Server;
  let base: string;
  let emails: unknown[] = [];
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.setHeader('content-type', 'application/json');
      if (req.url === '/login/oauth/access_token') {
        return res.end(
          JSON.stringify({ access_token: 'gho_abc', token_type: 'bearer', scope: 'read:user,user:email' }),
        );
      }
      if (req.headers.authorization !== 'Bearer gho_abc') {
        res.statusCode = 401;
        return res.end('{}');
      }
      if (req.url === '/user') {
        return res.end(
          JSON.stringify({ id: 583231, login: 'octocat', name: 'The Octocat', email: 'public@github.example' }),
        );
      }
      if (req.url === '/user/emails') return res.end(JSON.stringify(emails));
      res.statusCode = 404;
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const run = () => {
    const config = fromTemplate({ template: 'github', clientId: 'Iv1.abc' });
    const opts = { fetch: routedFetch({ 'https://github.com': base, 'https://api.github.com': base }) };
    const callbackParams = new URLSearchParams({ code: 'c', state: start.state });
    return completeAuthorization(config, { clientSecret: 'gh-secret' }, { ...start, callbackParams }, opts);
  };

  it('the numeric id becomes a string; the primary verified address from /user/emails is the email', async () => {
    emails = [
      { email: 'public@github.example', primary: false, verified: true },
      { email: 'octo@github.example', primary: true, verified: true },
    ];
    const { user } = await run();
    expect(user).toMatchObject({
      id: '583231',
      username: 'octocat',
      displayName: 'The Octocat',
      email: 'octo@github.example',
      emailVerified: true,
    });
    expect(seen).toContain('GET /user/emails Bearer gho_abc');
  });

  it('an unverified primary address stays unverified', async () => {
    emails = [{ email: 'octo@github.example', primary: true, verified: false }];
    const { user } = await run();
    expect(user).toMatchObject({ email: 'octo@github.example', emailVerified: false });
  });

  it('the login hint is GitHub’s `login` parameter', async () => {
    const config = fromTemplate({ template: 'github', clientId: 'Iv1.abc' });
    const { url } = await authorizationUrl(config, { clientSecret: 's' }, { ...start, loginHint: 'octocat' });
    const q = new URL(url).searchParams;
    expect(url.startsWith('https://github.com/login/oauth/authorize?')).toBe(true);
    expect(q.get('login')).toBe('octocat');
    expect(q.get('nonce')).toBeNull();
    expect(q.get('code_challenge_method')).toBe('S256');
  });
});
