import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOidcApp, addProject, REDIRECT } from '../../helpers/apps';
import { dpopKey, proof } from '../../helpers/dpop';
import { basic, postFormJson } from '../../helpers/forms';
import { getCode, rp } from '../../helpers/login-flow';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addUser } from '../../helpers/users';

/**
 * RFC 9449 §10 at the authorization endpoint: `dpop_jkt` binds the code to a key, so an intercepted
 * code is useless without it; and an application with dpopBoundAccessTokens cannot be handed an
 * (unbindable) access token in the authorization response.
 */
describe('DPoP at the authorization endpoint', () => {
  let server: TestServer;
  let project: string;
  let user: Awaited<ReturnType<typeof addUser>>;
  let tokenUrl: string;
  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    user = await addUser(server);
    tokenUrl = `${server.url}/oauth/v2/token`;
  });
  afterAll(() => server?.stop());

  it('redeems a code asked for with dpop_jkt only with a proof of that key', async () => {
    const app = await addOidcApp(server, project);
    const config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    const key = await dpopKey();
    const redeem = async (dpop?: string) => {
      const { code, verifier } = await getCode(server, config, user, { dpop_jkt: key.jkt });
      return postFormJson(
        server,
        '/oauth/v2/token',
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
        { authorization: basic(app.clientId, app.clientSecret!), ...(dpop ? { dpop } : {}) },
      );
    };
    const without = await redeem();
    expect(without).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(without.body.error_description).toMatch(/dpop_jkt/);
    expect(await redeem(await proof(await dpopKey(), 'POST', tokenUrl))).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    const ok = await redeem(await proof(key, 'POST', tokenUrl));
    expect(ok).toMatchObject({ status: 200, body: { token_type: 'DPoP' } });
  });

  it('refuses a malformed dpop_jkt, and an access token at authorize for a DPoP-required client', async () => {
    const app = await addOidcApp(server, project, { dpopBoundAccessTokens: true });
    const config = await rp(server, app.clientId, app.clientSecret);
    const errorOf = async (params: Record<string, string>) => {
      const url = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', ...params });
      const res = await fetch(url, { redirect: 'manual' });
      const location = res.headers.get('location') ?? '';
      return new URL(location.replace('#', '?'), server.url).searchParams.get('error');
    };
    expect(await errorOf({ response_type: 'code', dpop_jkt: (await dpopKey()).jkt })).toBeNull();
    expect(await errorOf({ response_type: 'code', dpop_jkt: 'short' })).toBe('invalid_request');
    expect(await errorOf({ response_type: 'id_token token', nonce: 'n' })).toBe('unauthorized_client');
  });
});
