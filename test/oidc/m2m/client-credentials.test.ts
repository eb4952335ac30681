import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { changeUserState, deleteUser } from '../../../src/domain/user/lifecycle';
import { removeSecret } from '../../../src/domain/user/credentials';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addApiApp, addProject } from '../../helpers/apps';
import { systemCtx } from '../../helpers/context';
import { basic, postFormJson } from '../../helpers/forms';
import { audScope, decodePayload } from '../../helpers/jwt-grants';
import { rp } from '../../helpers/login-flow';
import { addMachine, machineConfig } from '../../helpers/machines';

describe('client credentials grant (machine users)', () => {
  let server: TestServer;
  let project: string;
  let api: Awaited<ReturnType<typeof addApiApp>>;
  let apiConfig: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    api = await addApiApp(server, project);
    apiConfig = await rp(server, api.clientId, api.clientSecret, client.ClientSecretBasic(api.clientSecret));
  });
  afterAll(() => server?.stop());

  it('issues a JWT access token (access_token_type JWT) with Basic auth: no id_token, no refresh token', async () => {
    const m = await addMachine(server, { accessTokenType: 'JWT' });
    const tokens = await client.clientCredentialsGrant(await machineConfig(server, m), {
      scope: `openid profile offline_access ${audScope(project)} made-up`,
    });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.scope).toBe(`openid profile ${audScope(project)}`);
    expect(tokens.expires_in).toBeGreaterThan(0);
    const claims = decodePayload(tokens.access_token);
    expect(claims).toMatchObject({ iss: server.url, sub: m.id, client_id: m.username });
    expect(claims.aud).toEqual(expect.arrayContaining([project, api.clientId]));
    const header = JSON.parse(Buffer.from(tokens.access_token.split('.')[0], 'base64url').toString());
    expect(header.typ).toBe('at+jwt');
  });

  it('issues an opaque access token (access_token_type BEARER) with client_secret_post', async () => {
    const m = await addMachine(server);
    const tokens = await client.clientCredentialsGrant(await machineConfig(server, m, 'post'), {
      scope: audScope(project),
    });
    expect(tokens.access_token.split('.').length).not.toBe(3);
    const r = await client.tokenIntrospection(apiConfig, tokens.access_token);
    expect(r).toMatchObject({
      active: true,
      sub: m.id,
      client_id: m.username,
      scope: audScope(project),
      token_type: 'Bearer',
      iss: server.url,
    });
    expect(r.username).toMatch(new RegExp(`^${m.username}@`));
  });

  it('refuses a wrong secret, an unknown client, and two client authentication methods in one request', async () => {
    const m = await addMachine(server);
    const wrong = await postFormJson(
      server,
      '/oauth/v2/token',
      { grant_type: 'client_credentials' },
      { authorization: basic(m.username, 'wrong') },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const unknown = await postFormJson(server, '/oauth/v2/token', {
      grant_type: 'client_credentials',
      client_id: 'nobody',
      client_secret: 'x',
    });
    expect(unknown.body.error).toBe('invalid_client');
    const both = await postFormJson(
      server,
      '/oauth/v2/token',
      { grant_type: 'client_credentials', client_id: m.username, client_secret: m.clientSecret },
      { authorization: basic(m.username, m.clientSecret) },
    );
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('invalid_request');
  });

  it('refuses applications: client_credentials is for machine users', async () => {
    const r = await postFormJson(
      server,
      '/oauth/v2/token',
      { grant_type: 'client_credentials' },
      { authorization: basic(api.clientId, api.clientSecret) },
    );
    expect(r.body.error).toBe('unauthorized_client');
  });

  it('revocation by the machine user makes the token inactive', async () => {
    for (const type of ['BEARER', 'JWT'] as const) {
      const m = await addMachine(server, { accessTokenType: type });
      const config = await machineConfig(server, m);
      const tokens = await client.clientCredentialsGrant(config, { scope: audScope(project) });
      const other = await client.clientCredentialsGrant(config, { scope: audScope(project) });
      // introspected first, so that the answer a worker keeps for the token is what revocation must end
      expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active).toBe(true);
      await client.tokenRevocation(config, tokens.access_token);
      expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active).toBe(false);
      expect((await client.tokenIntrospection(apiConfig, other.access_token)).active).toBe(true);
    }
  });

  it('tokens go inactive when the machine user is deactivated, locked or deleted, or its secret removed', async () => {
    const ctx = systemCtx(server);
    const cases: [string, (id: string) => Promise<unknown>][] = [
      ['deactivate', (id) => changeUserState(ctx, id, 'deactivate')],
      ['lock', (id) => changeUserState(ctx, id, 'lock')],
      ['delete', (id) => deleteUser(ctx, id)],
      ['remove secret', (id) => removeSecret(ctx, { userId: id })],
    ];
    for (const [name, change] of cases) {
      const m = await addMachine(server, { accessTokenType: name === 'lock' ? 'JWT' : 'BEARER' });
      const tokens = await client.clientCredentialsGrant(await machineConfig(server, m), { scope: audScope(project) });
      expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active, name).toBe(true);
      await change(m.id);
      expect((await client.tokenIntrospection(apiConfig, tokens.access_token)).active, name).toBe(false);
    }
  });

  it('a deactivated machine user gets no new token', async () => {
    const m = await addMachine(server);
    await changeUserState(systemCtx(server), m.id, 'deactivate');
    const r = await postFormJson(
      server,
      '/oauth/v2/token',
      { grant_type: 'client_credentials' },
      { authorization: basic(m.username, m.clientSecret) },
    );
    expect(r.body.error).toBe('invalid_client');
  });

  it('scope is required (§4.3): a request without it is invalid_request', async () => {
    const m = await addMachine(server);
    for (const body of [{}, { scope: '' }] as Record<string, string>[]) {
      const res = await fetch(`${server.url}/oauth/v2/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${m.username}:${m.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', ...body }).toString(),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: 'invalid_request',
        error_description: expect.stringContaining('scope'),
      });
    }
  });

  it('the v2 API accepts the access token (opaque and JWT) with the machine user as caller', async () => {
    for (const type of ['BEARER', 'JWT'] as const) {
      const m = await addMachine(server, { accessTokenType: type });
      const tokens = await client.clientCredentialsGrant(await machineConfig(server, m), { scope: 'openid' });
      const users = server.client(UserService, { token: tokens.access_token });
      const me = await users.getUserByID({ userId: m.id });
      expect(me.user?.userId).toBe(m.id);
      // The machine user holds no administrator role: another user is out of reach.
      await expect(users.getUserByID({ userId: (await addMachine(server)).id })).rejects.toThrow();
    }
  });
});
