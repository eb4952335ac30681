import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { addApiApp, addOidcApp, addProject } from '../helpers/apps';
import { basic, postForm } from '../helpers/forms';
import { codeFlowTokens, rp } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

describe('introspection conformance (§7.3, RFC 7662)', () => {
  let server: TestServer;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let api: Awaited<ReturnType<typeof addApiApp>>;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    const project = await addProject(server);
    app = await addOidcApp(server, project);
    api = await addApiApp(server, project);
    config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
  });
  afterAll(() => server?.stop());

  it('every failed client authentication is 401 invalid_client', async () => {
    const cases: [Record<string, string>, Record<string, string>][] = [
      [{ token: 'x', client_secret: api.clientSecret }, { authorization: basic(api.clientId, api.clientSecret) }],
      [{ token: 'x', client_id: api.clientId, client_assertion_type: 'urn:wrong', client_assertion: 'a.b.c' }, {}],
      [
        {
          token: 'x',
          client_id: api.clientId,
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        },
        {},
      ],
      [{ token: 'x' }, { authorization: basic(api.clientId, 'wrong') }],
    ];
    for (const [form, headers] of cases) {
      const res = await postForm(server, '/oauth/v2/introspect', form, headers);
      expect(res.status, JSON.stringify(form)).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
    }
  });

  it('a refresh token introspected by its client is active with scope and expiry; for others it is not', async () => {
    const { tokens } = await codeFlowTokens(server, config, await addUser(server));
    const own = await client.tokenIntrospection(config, tokens.refresh_token!);
    expect(own).toMatchObject({ active: true, client_id: app.clientId, token_type: 'refresh_token' });
    expect(own.scope).toContain('offline_access');
    expect(own.exp).toBeGreaterThan(Date.now() / 1000);
    const other = await postForm(
      server,
      '/oauth/v2/introspect',
      { token: tokens.refresh_token! },
      { authorization: basic(api.clientId, api.clientSecret) },
    );
    expect(await other.json()).toEqual({ active: false });
    await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect((await client.tokenIntrospection(config, tokens.refresh_token!)).active).toBe(false);
  });
});
