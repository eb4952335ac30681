import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addProjectRole } from '../../src/domain/project/roles';
import { createAuthorization, deleteAuthorization } from '../../src/domain/authorization/commands';
import { changeUserState } from '../../src/domain/user/lifecycle';
import { startTestServer, type TestServer } from '../helpers/server';
import { addApiApp, addOidcApp, addProject, LOGOUT_REDIRECT, markApiClient, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { basic, postForm } from '../helpers/forms';
import { codeFlowTokens, rp } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

describe('introspection, revocation, end session', () => {
  let server: TestServer;
  let project: string;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let api: Awaited<ReturnType<typeof addApiApp>>;
  let foreignApi: Awaited<ReturnType<typeof addApiApp>>;
  let user: Awaited<ReturnType<typeof addUser>>;
  let config: client.Configuration;
  let apiConfig: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    app = await addOidcApp(server, project);
    api = await addApiApp(server, project);
    foreignApi = await addApiApp(server, await addProject(server));
    user = await addUser(server);
    config = await rp(server, app.clientId, app.clientSecret);
    apiConfig = await rp(server, api.clientId, api.clientSecret, client.ClientSecretBasic(api.clientSecret));
  });
  afterAll(() => server?.stop());

  const introspectAs = async (caller: { clientId: string; clientSecret: string }, token: string) =>
    (
      await postForm(
        server,
        '/oauth/v2/introspect',
        { token },
        { authorization: basic(caller.clientId, caller.clientSecret) },
      )
    ).json();

  it('introspection: active, with §2.6 fields, for a same-project API; inactive for a foreign audience', async () => {
    const { tokens } = await codeFlowTokens(server, config, user);
    const r = await client.tokenIntrospection(apiConfig, tokens.access_token);
    expect(r).toMatchObject({
      active: true,
      client_id: app.clientId,
      token_type: 'Bearer',
      iss: server.url,
      sub: user.id,
      scope: 'openid profile email',
    });
    expect(r.username).toMatch(new RegExp(`^${user.username}@`));
    expect(r.aud).toEqual(expect.arrayContaining([app.clientId, api.clientId, project]));
    for (const f of ['exp', 'iat', 'nbf', 'jti']) expect(r[f]).toBeDefined();
    expect(r.email).toBe(`${user.username}@example.com`);
    expect(await introspectAs(foreignApi, tokens.access_token)).toEqual({ active: false });
    expect(await introspectAs(api, 'pco_unknown')).toEqual({ active: false });
  });

  it('introspection: only Basic or private_key_jwt; client_secret_post and no auth → 401 invalid_client', async () => {
    const post = await postForm(server, '/oauth/v2/introspect', {
      token: 'x',
      client_id: api.clientId,
      client_secret: api.clientSecret,
    });
    expect(post.status).toBe(401);
    expect((await post.json()).error).toBe('invalid_client');
    const none = await postForm(server, '/oauth/v2/introspect', { token: 'x' });
    expect(none.status).toBe(401);
    const wrong = await postForm(
      server,
      '/oauth/v2/introspect',
      { token: 'x' },
      { authorization: basic(api.clientId, 'wrong') },
    );
    expect(wrong.status).toBe(401);
  });

  it('userinfo: 401 with WWW-Authenticate on a bad token', async () => {
    for (const auth of ['Bearer pco_invalid', 'Bearer ey.invalid.jwt', undefined]) {
      const res = await fetch(`${server.url}/oidc/v1/userinfo`, { headers: auth ? { authorization: auth } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('revoking an access token makes only it inactive', async () => {
    const { tokens } = await codeFlowTokens(server, config, user);
    const second = await client.refreshTokenGrant(config, tokens.refresh_token!);
    await client.tokenRevocation(config, tokens.access_token);
    expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active).toBe(false);
    expect((await client.tokenIntrospection(apiConfig, second.access_token)).active).toBe(true);
  });

  it('revoking a JWT access token makes it inactive at introspection and userinfo; the other tokens stay', async () => {
    const jwtApp = await addOidcApp(server, project, { accessTokenType: 'JWT' });
    const jwtConfig = await rp(server, jwtApp.clientId, jwtApp.clientSecret);
    const { tokens } = await codeFlowTokens(server, jwtConfig, user);
    expect(tokens.access_token.split('.')).toHaveLength(3);
    const second = await client.refreshTokenGrant(jwtConfig, tokens.refresh_token!);
    expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active).toBe(true);
    await client.tokenRevocation(jwtConfig, tokens.access_token);
    expect(await introspectAs(api, tokens.access_token)).toEqual({ active: false });
    const info = await fetch(`${server.url}/oidc/v1/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(401);
    expect((await client.tokenIntrospection(apiConfig, second.access_token)).active).toBe(true);
  });

  it('revoking a refresh token revokes the access tokens issued with it; other clients cannot revoke', async () => {
    const { tokens } = await codeFlowTokens(server, config, user);
    const other = await addOidcApp(server, project);
    const otherConfig = await rp(server, other.clientId, other.clientSecret);
    await client.tokenRevocation(otherConfig, tokens.refresh_token!);
    expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active).toBe(true);
    await client.tokenRevocation(config, tokens.refresh_token!);
    expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active).toBe(false);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('deactivating the user makes their tokens inactive at introspection and userinfo', async () => {
    const victim = await addUser(server);
    const { tokens } = await codeFlowTokens(server, config, victim);
    expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active).toBe(true);
    await changeUserState(systemCtx(server), victim.id, 'deactivate');
    expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active).toBe(false);
    const res = await fetch(`${server.url}/oidc/v1/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.status).toBe(401);
  });

  it('roles claims when requested; revoking the authorization makes the token inactive', async () => {
    await addProjectRole(systemCtx(server), { projectId: project, key: 'reader', displayName: 'Reader' });
    const member = await addUser(server);
    const { id: authzId } = await createAuthorization(systemCtx(server), {
      userId: member.id,
      projectId: project,
      roleKeys: ['reader'],
    });
    const { tokens } = await codeFlowTokens(server, config, member, {
      scope: 'openid urn:service:iam:org:project:role:reader',
    });
    const info = await client.fetchUserInfo(config, tokens.access_token, member.id);
    const roles = info['urn:service:iam:org:project:roles'] as Record<string, Record<string, string>>;
    expect(Object.keys(roles)).toEqual(['reader']);
    expect(info[`urn:service:iam:org:project:${project}:roles`]).toEqual(roles);
    const r = await client.tokenIntrospection(apiConfig, tokens.access_token);
    expect(r['urn:service:iam:org:project:roles']).toEqual(roles);
    await deleteAuthorization(systemCtx(server), { id: authzId });
    expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active).toBe(false);
  });

  it('end_session with a valid id_token_hint: redirect with state, session gone, tokens inactive', async () => {
    const r = await codeFlowTokens(server, config, user);
    const url = client.buildEndSessionUrl(config, {
      id_token_hint: r.tokens.id_token!,
      post_logout_redirect_uri: LOGOUT_REDIRECT,
      state: 'bye',
    });
    const res = await r.browser.request(url.toString());
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${LOGOUT_REDIRECT}?state=bye`);
    expect((await client.tokenIntrospection(apiConfig, r.tokens.access_token)).active).toBe(false);
    await expect(client.refreshTokenGrant(config, r.tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const none = await r.browser.request(
      client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', prompt: 'none' }).toString(),
    );
    expect(new URL(none.headers.get('location')!).searchParams.get('error')).toBe('login_required');
  });

  it('end_session + client_id redirects to a registered URI once confirmed; to an unregistered one never', async () => {
    const r = await codeFlowTokens(server, config, user);
    const page = await r.browser.go(
      `/oidc/v1/end_session?client_id=${app.clientId}&post_logout_redirect_uri=${encodeURIComponent(LOGOUT_REDIRECT)}`,
    );
    expect((await client.tokenIntrospection(apiConfig, r.tokens.access_token)).active).toBe(true);
    const ok = await r.browser.submit(page, '/oidc/v1/end_session', {});
    expect(ok.url).toBe(LOGOUT_REDIRECT);
    expect((await client.tokenIntrospection(apiConfig, r.tokens.access_token)).active).toBe(false);
    const bad = await new Browser(server.url).request(
      `/oidc/v1/end_session?client_id=${app.clientId}` +
        `&post_logout_redirect_uri=${encodeURIComponent('https://evil.example.com/')}`,
    );
    expect(bad.status).toBe(200);
    expect(bad.headers.get('location')).toBeNull();
  });

  it('end_session without hint and client_id ignores post_logout_redirect_uri, logs out once confirmed', async () => {
    const r = await codeFlowTokens(server, config, user);
    const page = await r.browser.go(
      `/oidc/v1/end_session?post_logout_redirect_uri=${encodeURIComponent(LOGOUT_REDIRECT)}`,
    );
    const res = await r.browser.submit(page, '/oidc/v1/end_session', {});
    expect(res.res.status).toBe(200);
    expect(res.html).toContain('signed out');
    expect((await client.tokenIntrospection(apiConfig, r.tokens.access_token)).active).toBe(false);
  });

  it('a tampered or alg-none hint never redirects; a hint and client_id that disagree → error page', async () => {
    const r = await codeFlowTokens(server, config, user);
    const [h, p, s] = r.tokens.id_token!.split('.');
    const tampered = `${h}.${p}.${s.slice(0, -4)}AAAA`;
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    for (const hint of [tampered, none]) {
      const res = await new Browser(server.url).request(
        `/oidc/v1/end_session?id_token_hint=${hint}&post_logout_redirect_uri=${encodeURIComponent(LOGOUT_REDIRECT)}`,
      );
      expect(res.headers.get('location')).toBeNull();
    }
    const other = await addOidcApp(server, project);
    const mismatch = await new Browser(server.url).request(
      `/oidc/v1/end_session?id_token_hint=${r.tokens.id_token}&client_id=${other.clientId}` +
        `&post_logout_redirect_uri=${encodeURIComponent(LOGOUT_REDIRECT)}`,
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.headers.get('location')).toBeNull();
  });

  it('the v2 API accepts our access tokens as bearer tokens when issued for it (the API audience scope)', async () => {
    await markApiClient(server, app.applicationId);
    const { tokens } = await codeFlowTokens(server, config, user, {
      scope: 'openid urn:service:iam:org:project:id:api:aud',
    });
    const res = await fetch(`${server.url}/portcullis.instance.v2.InstanceService/GetInstance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` },
      body: '{}',
    });
    // authenticated (not 401); the user holds no instance role, so the answer is permission denied
    expect(res.status).toBe(403);
  });
});
