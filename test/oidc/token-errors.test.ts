import { randomUUID } from 'node:crypto';
import * as client from 'openid-client';
import { importPKCS8, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplicationKey } from '../../src/domain/application/keys';
import { startTestServer, type TestServer } from '../helpers/server';
import { addApiApp, addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { basic, postForm } from '../helpers/forms';
import { codeFlowTokens, getCode, rp } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

/** Negative tests of the baseline's token endpoint rules. */
describe('token endpoint errors', () => {
  let server: TestServer;
  let project: string;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let api: Awaited<ReturnType<typeof addApiApp>>;
  let user: Awaited<ReturnType<typeof addUser>>;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    app = await addOidcApp(server, project);
    api = await addApiApp(server, project);
    user = await addUser(server);
    config = await rp(server, app.clientId, app.clientSecret);
  });
  afterAll(() => server?.stop());

  const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    postForm(server, '/oauth/v2/token', form, headers);
  const auth = () => ({ authorization: basic(app.clientId, app.clientSecret!) });
  const expectError = async (res: Response, error: string, status = 400) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toContain('no-store');
    const body = await res.json();
    expect(body.error).toBe(error);
    expect(body.error_description).toBeTruthy();
    return body;
  };
  const introspect = async (t: string) =>
    (
      await postForm(
        server,
        '/oauth/v2/introspect',
        { token: t },
        { authorization: basic(api.clientId, api.clientSecret) },
      )
    ).json();

  it('a second use of a code → invalid_grant and revokes the tokens issued from it', async () => {
    const { code, verifier } = await getCode(server, config, user);
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    const first = await token(form, auth());
    expect(first.status).toBe(200);
    const tokens = await first.json();
    expect((await introspect(tokens.access_token)).active).toBe(true);
    await expectError(await token(form, auth()), 'invalid_grant');
    expect((await introspect(tokens.access_token)).active).toBe(false);
    await expectError(
      await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, auth()),
      'invalid_grant',
    );
  });

  it('PKCE: wrong verifier, missing verifier → invalid_grant', async () => {
    const a = await getCode(server, config, user);
    await expectError(
      await token(
        { grant_type: 'authorization_code', code: a.code, redirect_uri: REDIRECT, code_verifier: 'x'.repeat(43) },
        auth(),
      ),
      'invalid_grant',
    );
    const b = await getCode(server, config, user);
    await expectError(
      await token({ grant_type: 'authorization_code', code: b.code, redirect_uri: REDIRECT }, auth()),
      'invalid_grant',
    );
  });

  it('PKCE downgrade: a verifier for a code issued without challenge → invalid_grant', async () => {
    const url = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid' });
    const landed = new URL(await new Browser(server.url).login(url.toString(), user.username, user.password));
    const code = landed.searchParams.get('code')!;
    await expectError(
      await token(
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: 'v'.repeat(43) },
        auth(),
      ),
      'invalid_grant',
    );
  });

  it('redirect_uri must equal the one of the request; code of another client → invalid_grant', async () => {
    const a = await getCode(server, config, user);
    await expectError(
      await token(
        {
          grant_type: 'authorization_code',
          code: a.code,
          redirect_uri: 'https://rp.example.com/other',
          code_verifier: a.verifier,
        },
        auth(),
      ),
      'invalid_grant',
    );
    const other = await addOidcApp(server, project);
    const b = await getCode(server, config, user);
    await expectError(
      await token(
        { grant_type: 'authorization_code', code: b.code, redirect_uri: REDIRECT, code_verifier: b.verifier },
        { authorization: basic(other.clientId, other.clientSecret!) },
      ),
      'invalid_grant',
    );
  });

  it('grant_type password → unsupported_grant_type; missing grant_type → invalid_request', async () => {
    await expectError(
      await token({ grant_type: 'password', username: user.username, password: user.password }, auth()),
      'unsupported_grant_type',
    );
    await expectError(await token({}, auth()), 'invalid_request');
  });

  it('a grant the client may not use → unauthorized_client', async () => {
    const noRefresh = await addOidcApp(server, project, { grantTypes: ['AUTHORIZATION_CODE'] });
    await expectError(
      await token(
        { grant_type: 'refresh_token', refresh_token: 'pcr_x' },
        { authorization: basic(noRefresh.clientId, noRefresh.clientSecret!) },
      ),
      'unauthorized_client',
    );
  });

  it('bad secret, unknown client, no auth if confidential → 401 invalid_client, Basic: WWW-Authenticate', async () => {
    const res = await token(
      { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT },
      { authorization: basic(app.clientId, 'wrong') },
    );
    await expectError(res, 'invalid_client', 401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
    await expectError(
      await token({
        grant_type: 'authorization_code',
        code: 'x',
        redirect_uri: REDIRECT,
        client_id: 'nope',
        client_secret: 's',
      }),
      'invalid_client',
      401,
    );
    await expectError(
      await token({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT, client_id: app.clientId }),
      'invalid_client',
      401,
    );
    await expectError(
      await token({ grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT }),
      'invalid_client',
      401,
    );
  });

  it('two client authentication methods → invalid_request', async () => {
    await expectError(
      await token(
        {
          grant_type: 'authorization_code',
          code: 'x',
          redirect_uri: REDIRECT,
          client_id: app.clientId,
          client_secret: app.clientSecret!,
        },
        auth(),
      ),
      'invalid_request',
    );
  });

  it('malformed requests: wrong content type, repeated parameter, invalid UTF-8 → invalid_request', async () => {
    const json = await fetch(`${server.url}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth() },
      body: '{"grant_type":"x"}',
    });
    await expectError(json, 'invalid_request');
    const repeated = await fetch(`${server.url}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth() },
      body: 'grant_type=authorization_code&code=a&code=b',
    });
    await expectError(repeated, 'invalid_request');
    const bad = await fetch(`${server.url}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth() },
      body: Buffer.from([0x67, 0x3d, 0xff, 0xfe]),
    });
    await expectError(bad, 'invalid_request');
  });

  it('refresh token of another client → invalid_grant', async () => {
    const { tokens } = await codeFlowTokens(server, config, user);
    const other = await addOidcApp(server, project);
    await expectError(
      await token(
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
        { authorization: basic(other.clientId, other.clientSecret!) },
      ),
      'invalid_grant',
    );
  });

  describe('private_key_jwt assertions', () => {
    let keyApp: Awaited<ReturnType<typeof addOidcApp>>;
    let key: CryptoKey;
    let kid: string;
    beforeAll(async () => {
      keyApp = await addOidcApp(server, project, { authMethodType: 'PRIVATE_KEY_JWT' });
      const created = await createApplicationKey(systemCtx(server), { applicationId: keyApp.applicationId });
      key = (await importPKCS8(created.keyFile.key, 'RS256')) as CryptoKey;
      kid = created.keyFile.keyId;
    });
    const assertion = (claims: Record<string, unknown>, signWith: CryptoKey = key) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: keyApp.clientId,
        sub: keyApp.clientId,
        aud: server.url,
        jti: randomUUID(),
        iat: now,
        exp: now + 60,
        ...claims,
      })
        .setProtectedHeader({ alg: 'RS256', kid })
        .sign(signWith);
    };
    const send = async (a: string) =>
      token({
        grant_type: 'refresh_token',
        refresh_token: 'pcr_unknown',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: a,
      });

    it('a valid assertion authenticates (the unknown refresh token → invalid_grant); its replay fails', async () => {
      const a = await assertion({});
      await expectError(await send(a), 'invalid_grant');
      await expectError(await send(a), 'invalid_client', 401);
    });
    it('expired, wrong audience, wrong issuer, missing exp, unknown key → invalid_client', async () => {
      const now = Math.floor(Date.now() / 1000);
      await expectError(await send(await assertion({ exp: now - 120, iat: now - 180 })), 'invalid_client', 401);
      await expectError(await send(await assertion({ aud: 'https://other.example.com' })), 'invalid_client', 401);
      await expectError(await send(await assertion({ iss: 'someone-else' })), 'invalid_client', 401);
      await expectError(await send(await assertion({ exp: undefined })), 'invalid_client', 401);
      const { privateKey } = await (await import('jose')).generateKeyPair('RS256');
      await expectError(await send(await assertion({}, privateKey as CryptoKey)), 'invalid_client', 401);
    });
  });
});
