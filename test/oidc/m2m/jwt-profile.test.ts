import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeKey } from '../../../src/domain/user/credentials';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addApiApp, addProject } from '../../helpers/apps';
import { systemCtx } from '../../helpers/context';
import { postFormJson } from '../../helpers/forms';
import { assertion, audScope, decodePayload, JWT_BEARER, otherRsaKey } from '../../helpers/jwt-grants';
import { rp } from '../../helpers/login-flow';
import { addMachine, machineConfig } from '../../helpers/machines';

describe('JWT profile grant (machine user keys)', () => {
  let server: TestServer;
  let project: string;
  let apiConfig: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    const api = await addApiApp(server, project);
    apiConfig = await rp(server, api.clientId, api.clientSecret, client.ClientSecretBasic(api.clientSecret));
  });
  afterAll(() => server?.stop());

  const grant = (a: string, scope = 'openid') =>
    postFormJson(server, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: a, scope });

  it('issues an access token and, with openid, an ID token of the service user', async () => {
    const m = await addMachine(server, { accessTokenType: 'JWT' });
    // No client authentication is needed; openid-client always sends one, here the machine user's secret.
    const tokens = await client.genericGrantRequest(await machineConfig(server, m), JWT_BEARER, {
      assertion: await assertion(server, m),
      scope: `openid profile ${audScope(project)}`,
    });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.refresh_token).toBeUndefined();
    const id = decodePayload(tokens.id_token!);
    expect(id).toMatchObject({ iss: server.url, sub: m.id });
    // §2.4: with an access token, the ID token has no profile claims; userinfo has them
    expect(id.preferred_username).toBeUndefined();
    expect(id.name).toBeUndefined();
    expect(id.updated_at).toBeUndefined();
    const info = (await (
      await fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    ).json()) as Record<string, unknown>;
    expect(info.preferred_username).toMatch(new RegExp(`^${m.username}@`));
    expect(decodePayload(tokens.access_token)).toMatchObject({ sub: m.id, client_id: m.username });
    expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active).toBe(true);
  });

  it('without openid there is no ID token; an opaque token for a BEARER machine user', async () => {
    const m = await addMachine(server);
    const r = await grant(await assertion(server, m), audScope(project));
    expect(r.status).toBe(200);
    expect(r.body.id_token).toBeUndefined();
    expect(r.body.access_token.split('.').length).not.toBe(3);
    // Without client authentication the token's client is the service user itself.
    expect((await client.tokenIntrospection(apiConfig, r.body.access_token)).client_id).toBe(m.id);
    expect((await client.tokenIntrospection(apiConfig, r.body.access_token)).active).toBe(true);
  });

  it('scope is required (§4.3): without it the request is invalid_request', async () => {
    const m = await addMachine(server);
    const r = await postFormJson(server, '/oauth/v2/token', {
      grant_type: JWT_BEARER,
      assertion: await assertion(server, m),
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('scope') });
  });

  it('refuses a replayed jti', async () => {
    const m = await addMachine(server);
    const a = await assertion(server, m);
    expect((await grant(a)).status).toBe(200);
    const again = await grant(a);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: 'invalid_grant' });
    expect(again.body.error_description).toMatch(/replay/);
  });

  it('refuses a wrong aud, a missing jti, an old iat, an expired assertion, a foreign key and iss ≠ sub', async () => {
    const m = await addMachine(server);
    const other = await addMachine(server);
    const now = Math.floor(Date.now() / 1000);
    const bad = {
      'wrong aud': await assertion(server, m, { aud: 'https://elsewhere.example.com' }),
      'no jti': await assertion(server, m, { jti: null }),
      'old iat': await assertion(server, m, { iat: now - 7200, exp: now + 300 }),
      expired: await assertion(server, m, { iat: now - 600, exp: now - 300 }),
      'foreign key': await assertion(server, m, { key: otherRsaKey() }),
      'other user key': await assertion(server, m, { kid: other.keyId, key: other.privateKey }),
      'iss differs': await assertion(server, m, { iss: other.id }),
    };
    for (const [name, a] of Object.entries(bad)) {
      const r = await grant(a);
      expect(r.status, name).toBe(400);
      expect(r.body.error, name).toBe('invalid_grant');
    }
  });

  it('refuses an expired key and a removed key; tokens of a removed key become inactive', async () => {
    const m = await addMachine(server, { keyExpiresAt: new Date(Date.now() + 1500) });
    const early = await grant(await assertion(server, m), audScope(project));
    expect(early.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    const late = await grant(await assertion(server, m));
    expect(late.body.error).toBe('invalid_grant');
    expect(late.body.error_description).toMatch(/expired/);

    const k = await addMachine(server);
    const tokens = await grant(await assertion(server, k), audScope(project));
    expect((await client.tokenIntrospection(apiConfig, tokens.body.access_token)).active).toBe(true);
    await removeKey(systemCtx(server), { userId: k.id, keyId: k.keyId });
    expect((await client.tokenIntrospection(apiConfig, tokens.body.access_token)).active).toBe(false);
    expect((await grant(await assertion(server, k))).body.error).toBe('invalid_grant');
  });

  it('needs the assertion', async () => {
    const r = await postFormJson(server, '/oauth/v2/token', { grant_type: JWT_BEARER });
    expect(r.body.error).toBe('invalid_request');
  });
});
