import * as client from 'openid-client';
import { importPKCS8 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplicationKey } from '../../src/domain/application/keys';
import { startTestServer, type TestServer } from '../helpers/server';
import { addApiApp, addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { basic, postForm } from '../helpers/forms';
import { codeFlowTokens, rp } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

describe('authorization code flow', () => {
  let server: TestServer;
  let project: string;
  let user: Awaited<ReturnType<typeof addUser>>;
  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    user = await addUser(server);
  });
  afterAll(() => server?.stop());

  it('code + PKCE with client_secret_basic: ID token claims, §2.4 rule, userinfo GET and POST', async () => {
    const app = await addOidcApp(server, project);
    const config = await rp(server, app.clientId, app.clientSecret);
    const nonce = client.randomNonce();
    const { tokens, landed } = await codeFlowTokens(server, config, user, { nonce });
    expect(landed.searchParams.get('iss')).toBe(server.url);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: server.url, sub: user.id, azp: app.clientId, nonce, amr: ['pwd'] });
    expect(claims.aud).toContain(app.clientId);
    for (const c of ['auth_time', 'sid', 'at_hash', 'exp', 'iat']) expect(claims[c]).toBeDefined();
    expect(claims.email).toBeUndefined();
    expect(claims.name).toBeUndefined();
    expect(tokens.refresh_token).toMatch(/^pcr_/);
    expect(tokens.access_token).toMatch(/^pco_/);
    expect(tokens.scope).toBe('openid profile email offline_access');
    const info = await client.fetchUserInfo(config, tokens.access_token, user.id);
    expect(info).toMatchObject({
      sub: user.id,
      email: `${user.username}@example.com`,
      email_verified: true,
      given_name: 'Ada',
      family_name: 'Lovelace',
    });
    const post = await fetch(`${server.url}/oidc/v1/userinfo`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: tokens.access_token }),
    });
    expect(post.status).toBe(200);
    expect((await post.json()).sub).toBe(user.id);
  });

  it('id_token_userinfo_assertion puts profile claims into the ID token', async () => {
    const app = await addOidcApp(server, project, { idTokenUserinfoAssertion: true });
    const config = await rp(server, app.clientId, app.clientSecret);
    const { tokens } = await codeFlowTokens(server, config, user);
    expect(tokens.claims()).toMatchObject({ email: `${user.username}@example.com`, given_name: 'Ada' });
  });

  it('client_secret_post', async () => {
    const app = await addOidcApp(server, project, { authMethodType: 'POST' });
    const config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretPost(app.clientSecret));
    const { tokens } = await codeFlowTokens(server, config, user);
    expect(tokens.claims()!.sub).toBe(user.id);
  });

  it('public client (none + PKCE)', async () => {
    const app = await addOidcApp(server, project, { authMethodType: 'NONE', applicationType: 'USER_AGENT' });
    const config = await rp(server, app.clientId, { token_endpoint_auth_method: 'none' }, client.None());
    const { tokens } = await codeFlowTokens(server, config, user);
    expect(tokens.claims()!.sub).toBe(user.id);
  });

  it('private_key_jwt with an application key', async () => {
    const app = await addOidcApp(server, project, { authMethodType: 'PRIVATE_KEY_JWT' });
    const { keyFile } = await createApplicationKey(systemCtx(server), { applicationId: app.applicationId });
    const key = await importPKCS8(keyFile.key, 'RS256');
    const config = await rp(server, app.clientId, {}, client.PrivateKeyJwt({ key, kid: keyFile.keyId }));
    const { tokens } = await codeFlowTokens(server, config, user);
    expect(tokens.claims()!.sub).toBe(user.id);
    // and a refresh with the same method
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
  });

  it('JWT access tokens (RFC 9068 shape) verify against the JWKS and work at userinfo', async () => {
    const app = await addOidcApp(server, project, { accessTokenType: 'JWT' });
    const config = await rp(server, app.clientId, app.clientSecret);
    const { tokens } = await codeFlowTokens(server, config, user);
    const [h, p] = tokens.access_token
      .split('.')
      .slice(0, 2)
      .map((s) => JSON.parse(Buffer.from(s, 'base64url').toString()));
    expect(h.typ).toBe('at+jwt');
    expect(p).toMatchObject({ iss: server.url, sub: user.id, client_id: app.clientId, scope: 'openid profile email' });
    for (const c of ['aud', 'exp', 'iat', 'nbf', 'jti']) expect(p[c]).toBeDefined();
    const { createRemoteJWKSet, jwtVerify } = await import('jose');
    await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${server.url}/oauth/v2/keys`)), {
      issuer: server.url,
    });
    const info = await client.fetchUserInfo(config, tokens.access_token, user.id);
    expect(info.sub).toBe(user.id);
  });

  it('refresh tokens rotate; reusing a rotated one revokes the whole grant', async () => {
    const app = await addOidcApp(server, project);
    const api = await addApiApp(server, project);
    const config = await rp(server, app.clientId, app.clientSecret);
    const { tokens } = await codeFlowTokens(server, config, user);
    const first = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(first.refresh_token).toBeTruthy();
    expect(first.refresh_token).not.toBe(tokens.refresh_token);
    expect(first.claims()!.sub).toBe(user.id);
    // narrower scope is allowed
    const narrower = await client.refreshTokenGrant(config, first.refresh_token!, { scope: 'openid email' });
    expect(narrower.scope).toBe('openid email');
    // reuse of the rotated token
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // the whole grant is revoked: the newest refresh token and the access tokens
    await expect(client.refreshTokenGrant(config, narrower.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const introspect = await postForm(
      server,
      '/oauth/v2/introspect',
      { token: narrower.access_token },
      { authorization: basic(api.clientId, api.clientSecret) },
    );
    expect(await introspect.json()).toEqual({ active: false });
  });

  it('refresh scope must be a subset of the original', async () => {
    const app = await addOidcApp(server, project);
    const config = await rp(server, app.clientId, app.clientSecret);
    const { tokens } = await codeFlowTokens(server, config, user, { scope: 'openid offline_access' });
    await expect(
      client.refreshTokenGrant(config, tokens.refresh_token!, { scope: 'openid email' }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });
    // invalid_scope does not consume the token
    expect((await client.refreshTokenGrant(config, tokens.refresh_token!)).access_token).toBeTruthy();
  });

  it('no refresh token without offline_access', async () => {
    const app = await addOidcApp(server, project);
    const config = await rp(server, app.clientId, app.clientSecret);
    const { tokens } = await codeFlowTokens(server, config, user, { scope: 'openid' });
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('a native app may use any loopback port', async () => {
    const app = await addOidcApp(server, project, {
      applicationType: 'NATIVE',
      authMethodType: 'NONE',
      redirectUris: ['http://127.0.0.1/callback'],
      developmentMode: true,
    });
    const browser = new Browser(server.url);
    const res = await browser.request(
      `/oauth/v2/authorize?client_id=${app.clientId}` +
        `&redirect_uri=${encodeURIComponent('http://127.0.0.1:4711/callback')}&response_type=code&scope=openid` +
        `&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`,
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('/ui/login/login');
  });
  void REDIRECT;
});
