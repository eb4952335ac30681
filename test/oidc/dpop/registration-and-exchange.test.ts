import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateInstanceSettings } from '../../../src/domain/instance/update-settings';
import { addOidcApp, addProject, REDIRECT } from '../../helpers/apps';
import { systemCtx } from '../../helpers/context';
import { dpopKey, proof } from '../../helpers/dpop';
import { basic, postFormJson } from '../../helpers/forms';
import { audScope, TOKEN_EXCHANGE, TT } from '../../helpers/jwt-grants';
import { addMachine } from '../../helpers/machines';
import { startTestServer, type TestServer } from '../../helpers/server';

/**
 * DPoP in dynamic client registration (RFC 9449 §5.2 `dpop_bound_access_tokens`) and in token
 * exchange: a bound token cannot be traded for an unbound one by someone without its key.
 */
describe('DPoP in registration and token exchange', () => {
  let server: TestServer;
  let project: string;
  let tokenUrl: string;
  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    tokenUrl = `${server.url}/oauth/v2/token`;
    await updateInstanceSettings(systemCtx(server), {
      dynamicRegistration: 'OPEN',
      dynamicRegistrationProjectId: project,
      dynamicRegistrationGrantTypes: ['authorization_code', 'refresh_token'],
    });
  });
  afterAll(() => server?.stop());

  const register = (metadata: Record<string, unknown>) =>
    fetch(`${server.url}/oauth/v2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], ...metadata }),
    });

  it('registers dpop_bound_access_tokens, echoes it, and the token endpoint then wants a proof', async () => {
    const res = await register({ dpop_bound_access_tokens: true });
    expect(res.status).toBe(201);
    const m = await res.json();
    expect(m.dpop_bound_access_tokens).toBe(true);
    const code = { grant_type: 'authorization_code', code: 'unknown', redirect_uri: REDIRECT };
    const auth = { authorization: basic(m.client_id, m.client_secret) };
    const without = await postFormJson(server, '/oauth/v2/token', code, auth);
    expect(without).toMatchObject({ status: 400, body: { error: 'invalid_dpop_proof' } });
    // with a proof and the nonce the request gets as far as the (unknown) code
    const key = await dpopKey();
    const first = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...auth,
        dpop: await proof(key, 'POST', tokenUrl),
      },
      body: new URLSearchParams(code),
    });
    expect((await first.json()).error).toBe('use_dpop_nonce');
    const nonce = first.headers.get('dpop-nonce')!;
    const second = await postFormJson(server, '/oauth/v2/token', code, {
      ...auth,
      dpop: await proof(key, 'POST', tokenUrl, { nonce }),
    });
    expect(second.body.error).toBe('invalid_grant');

    const plain = await (await register({})).json();
    expect(plain.dpop_bound_access_tokens).toBe(false);
    const wrong = await register({ dpop_bound_access_tokens: 'yes' });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error).toBe('invalid_client_metadata');
  });

  it('exchanges a DPoP-bound subject token only with a proof of its key', async () => {
    const app = await addOidcApp(server, project, { grantTypes: ['AUTHORIZATION_CODE', 'TOKEN_EXCHANGE'] });
    const m = await addMachine(server, { accessTokenType: 'JWT' });
    const key = await dpopKey();
    const issued = await postFormJson(
      server,
      '/oauth/v2/token',
      { grant_type: 'client_credentials', scope: `openid ${audScope(project)}` },
      { authorization: basic(m.username, m.clientSecret), dpop: await proof(key, 'POST', tokenUrl) },
    );
    expect(issued.body.token_type).toBe('DPoP');
    const exchange = (dpop?: string) =>
      postFormJson(
        server,
        '/oauth/v2/token',
        { grant_type: TOKEN_EXCHANGE, subject_token: issued.body.access_token, subject_token_type: TT.access },
        { authorization: basic(app.clientId, app.clientSecret!), ...(dpop ? { dpop } : {}) },
      );
    const without = await exchange();
    expect(without).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(without.body.error_description).toMatch(/DPoP-bound/);
    const other = await exchange(await proof(await dpopKey(), 'POST', tokenUrl));
    expect(other).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const ok = await exchange(await proof(key, 'POST', tokenUrl));
    expect(ok.status).toBe(200);
    expect(ok.body.token_type).toBe('DPoP');
    const config = await client.discovery(
      new URL(server.url),
      app.clientId,
      app.clientSecret,
      client.ClientSecretBasic(app.clientSecret!),
      { execute: [client.allowInsecureRequests] },
    );
    expect(await client.tokenIntrospection(config, ok.body.access_token)).toMatchObject({
      active: true,
      token_type: 'DPoP',
      cnf: { jkt: key.jkt },
    });
  });
});
