import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorization } from '../../src/domain/authorization/commands';
import { addProjectRole } from '../../src/domain/project/roles';
import { startTestServer, type TestServer } from '../helpers/server';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { rp } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

describe('implicit flow', () => {
  let server: TestServer;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let user: Awaited<ReturnType<typeof addUser>>;
  let config: client.Configuration;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    const project = await addProject(server);
    app = await addOidcApp(server, project, { applicationType: 'USER_AGENT', authMethodType: 'NONE' });
    user = await addUser(server);
    config = await rp(server, app.clientId, { token_endpoint_auth_method: 'none' }, client.None());
    browser = new Browser(server.url);
    // sign in once; later requests answer silently from the session
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      response_type: 'id_token',
      nonce: 'n0',
    });
    await browser.login(url.toString(), user.username, user.password);
  });
  afterAll(() => server?.stop());

  const run = async (responseType: string, mode?: string) => {
    const nonce = client.randomNonce();
    const state = client.randomState();
    const params: Record<string, string> = {
      redirect_uri: REDIRECT,
      scope: 'openid profile email',
      response_type: responseType,
      nonce,
      state,
    };
    if (mode) params.response_mode = mode;
    const res = await browser.request(client.buildAuthorizationUrl(config, params).toString());
    return { res, nonce, state };
  };

  it('id_token in the fragment (default), with profile claims since no access token is issued', async () => {
    const { res, nonce, state } = await run('id_token');
    const loc = res.headers.get('location')!;
    expect(loc).toContain('#');
    const idConfig = await rp(server, app.clientId, { token_endpoint_auth_method: 'none' }, client.None());
    client.useIdTokenResponseType(idConfig);
    const claims = await client.implicitAuthentication(idConfig, new URL(loc), nonce, { expectedState: state });
    expect(claims.sub).toBe(user.id);
    expect(claims.email).toBe(`${user.username}@example.com`);
    const frag = new URLSearchParams(new URL(loc).hash.slice(1));
    expect(frag.get('access_token')).toBeNull();
    expect(frag.get('iss')).toBe(server.url);
  });

  it('id_token token: access token, at_hash, no profile claims in the ID token (§2.4)', async () => {
    const { res, nonce, state } = await run('id_token token');
    const loc = new URL(res.headers.get('location')!);
    const frag = new URLSearchParams(loc.hash.slice(1));
    expect(frag.get('token_type')).toBe('Bearer');
    expect(Number(frag.get('expires_in'))).toBeGreaterThan(0);
    expect(frag.get('scope')).toBe('openid profile email');
    // openid-client validates only response_type=id_token; check this one with jose and at_hash by hand
    const { payload: claims } = await jwtVerify(
      frag.get('id_token')!,
      createRemoteJWKSet(new URL(`${server.url}/oauth/v2/keys`)),
      {
        issuer: server.url,
        audience: app.clientId,
      },
    );
    expect(claims.nonce).toBe(nonce);
    expect(frag.get('state')).toBe(state);
    const digest = createHash('sha256').update(frag.get('access_token')!).digest();
    expect(claims.at_hash).toBe(digest.subarray(0, 16).toString('base64url'));
    expect(claims.email).toBeUndefined();
    const info = await client.fetchUserInfo(config, frag.get('access_token')!, user.id);
    expect(info.email).toBe(`${user.username}@example.com`);
  });

  it('response_mode=query is ignored for tokens (fragment is used)', async () => {
    const { res } = await run('id_token', 'query');
    expect(res.headers.get('location')).toContain('#id_token=');
  });

  it('form_post delivers the ID token in an auto-submitting page', async () => {
    for (const rt of ['id_token', 'id_token token']) {
      const { res, state } = await run(rt, 'form_post');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const html = await res.text();
      expect(html).toContain(`action="${REDIRECT}"`);
      expect(html).toMatch(/name="id_token" value="ey/);
      expect(html).toContain(`name="state" value="${state}"`);
      expect(html).toContain(`name="iss" value="${server.url}"`);
      if (rt === 'id_token token') expect(html).toContain('name="access_token"');
    }
  });

  it('id_token token: the JWT access token carries role claims by the rules of the code flow', async () => {
    const project = await addProject(server);
    await addProjectRole(systemCtx(server), { projectId: project, key: 'editor', displayName: 'Editor' });
    await createAuthorization(systemCtx(server), { userId: user.id, projectId: project, roleKeys: ['editor'] });
    const jwtApp = { applicationType: 'USER_AGENT', authMethodType: 'NONE', accessTokenType: 'JWT' } as const;
    const asserting = await addOidcApp(server, project, { ...jwtApp, accessTokenRoleAssertion: true });
    const silent = await addOidcApp(server, project, { ...jwtApp, accessTokenRoleAssertion: false });
    const scope = 'openid urn:service:iam:org:project:role:editor';
    const decode = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
    const implicitToken = async (clientId: string) => {
      const cfg = await rp(server, clientId, { token_endpoint_auth_method: 'none' }, client.None());
      const res = await browser.request(
        client
          .buildAuthorizationUrl(cfg, { redirect_uri: REDIRECT, scope, response_type: 'id_token token', nonce: 'n' })
          .toString(),
      );
      return decode(new URLSearchParams(new URL(res.headers.get('location')!).hash.slice(1)).get('access_token')!);
    };
    const codeToken = async (clientId: string) => {
      const cfg = await rp(server, clientId, { token_endpoint_auth_method: 'none' }, client.None());
      const verifier = client.randomPKCECodeVerifier();
      const res = await browser.request(
        client
          .buildAuthorizationUrl(cfg, {
            redirect_uri: REDIRECT,
            scope,
            code_challenge: await client.calculatePKCECodeChallenge(verifier),
            code_challenge_method: 'S256',
            state: 's',
          })
          .toString(),
      );
      const tokens = await client.authorizationCodeGrant(cfg, new URL(res.headers.get('location')!), {
        pkceCodeVerifier: verifier,
        expectedState: 's',
      });
      return decode(tokens.access_token);
    };
    const implicit = await implicitToken(asserting.clientId);
    const roles = implicit['urn:service:iam:org:project:roles'];
    expect(Object.keys(roles)).toEqual(['editor']);
    expect(implicit[`urn:service:iam:org:project:${project}:roles`]).toEqual(roles);
    expect((await codeToken(asserting.clientId))['urn:service:iam:org:project:roles']).toEqual(roles);
    // without access_token_role_assertion neither flow puts roles into the access token
    expect((await implicitToken(silent.clientId))['urn:service:iam:org:project:roles']).toBeUndefined();
    expect((await codeToken(silent.clientId))['urn:service:iam:org:project:roles']).toBeUndefined();
  });

  it('code with form_post', async () => {
    const res = await browser.request(
      client
        .buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT,
          scope: 'openid',
          response_mode: 'form_post',
          code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
          code_challenge_method: 'S256',
        })
        .toString(),
    );
    expect(await res.text()).toMatch(/name="code" value="[\w-]{40,}"/);
  });
});
