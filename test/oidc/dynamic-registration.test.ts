import * as client from 'openid-client';
import { and, eq } from 'drizzle-orm';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamicRegistration, InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { applications, events } from '../../src/db/schema/index';
import { pruneUnusedRegisteredClients } from '../../src/domain/application/registration/prune';
import { updateInstanceSettings } from '../../src/domain/instance/update-settings';
import type { InstanceSettings } from '../../src/domain/instance/settings';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { systemCtx } from '../helpers/context';
import { lastPosition } from '../helpers/events';
import { codeFlowTokens, getCode } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

const IAT = 'initial-access-token-0123456789-abcdefghijklmnop';
const insecure = { execute: [client.allowInsecureRequests] };

describe('dynamic client registration (RFC 7591, RFC 7592)', () => {
  let server: TestServer;
  let project: string;
  let user: Awaited<ReturnType<typeof addUser>>;
  const settings = (s: Partial<InstanceSettings>) => updateInstanceSettings(systemCtx(server), s);
  const register = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/oauth/v2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const configure = (uri: string, token: string | undefined, init: RequestInit = {}) =>
    fetch(uri, {
      ...init,
      headers: {
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });

  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    user = await addUser(server);
  });
  afterAll(() => server?.stop());
  beforeEach(async () => {
    await settings({
      dynamicRegistration: 'OPEN',
      dynamicRegistrationProjectId: project,
      dynamicRegistrationGrantTypes: ['authorization_code', 'refresh_token'],
    });
  });

  it('a public client registers itself with openid-client and signs a user in with code + PKCE', async () => {
    const config = await client.dynamicClientRegistration(
      new URL(server.url),
      {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        client_name: 'MCP agent',
        scope: 'openid',
      },
      client.None(),
      insecure,
    );
    const m = config.clientMetadata();
    expect(m.client_secret).toBeUndefined();
    expect(m).toMatchObject({
      client_name: 'MCP agent',
      token_endpoint_auth_method: 'none',
      redirect_uris: [REDIRECT],
      application_type: 'web',
    });
    expect(m.registration_client_uri).toBe(`${server.url}/oauth/v2/register/${encodeURIComponent(m.client_id)}`);
    const { tokens } = await codeFlowTokens(server, config, user);
    expect(tokens.claims()).toMatchObject({ sub: user.id, azp: m.client_id });
    expect(tokens.refresh_token).toBeDefined();
  });

  it('a confidential client gets a secret that never expires and uses it at the token endpoint', async () => {
    const before = await lastPosition(server);
    const config = await client.dynamicClientRegistration(
      new URL(server.url),
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' },
      undefined,
      insecure,
    );
    const m = config.clientMetadata();
    expect(m.client_secret).toEqual(expect.any(String));
    expect(m.client_secret_expires_at).toBe(0);
    expect(m.client_id_issued_at).toBeGreaterThan(Date.now() / 1000 - 60);
    const { tokens } = await codeFlowTokens(server, config, user);
    expect(tokens.claims()?.sub).toBe(user.id);
    // CreateApplication's events, on the project, with the client id.
    const added = await server.app.database.db
      .select()
      .from(events)
      .where(and(eq(events.aggregateId, project), eq(events.eventType, 'project.application.config.oidc.added')));
    const mine = added.filter((e) => e.position > before && (e.payload as any).clientId === m.client_id);
    expect(mine).toHaveLength(1);
    // Only a hash of the registration access token is stored.
    const [row] = await server.app.database.db
      .select()
      .from(applications)
      .where(eq(applications.clientId, m.client_id));
    expect(row.registrationTokenHash).toMatch(/^hmac-sha256\$/);
    expect(row.registrationTokenHash).not.toContain(String(m.registration_access_token));
  });

  it('read, update and delete with the registration access token; a deleted client gets no tokens', async () => {
    const res = await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'one' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const reg = await res.json();
    const token = reg.registration_access_token;
    const read = await configure(reg.registration_client_uri, token);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({
      client_id: reg.client_id,
      client_name: 'one',
      redirect_uris: [REDIRECT],
    });

    const before = await lastPosition(server);
    const other = 'https://rp.example.com/other';
    const put = await configure(reg.registration_client_uri, token, {
      method: 'PUT',
      body: JSON.stringify({ client_id: reg.client_id, redirect_uris: [other], token_endpoint_auth_method: 'none' }),
    });
    expect(put.status).toBe(200);
    // Replaced, not merged: the omitted client_name went back to its default.
    expect(await put.json()).toMatchObject({ redirect_uris: [other], client_name: 'Self-registered client' });
    const changed = await server.app.database.db
      .select()
      .from(events)
      .where(eq(events.eventType, 'project.application.config.oidc.changed'));
    expect(changed.filter((e) => e.position > before)).toHaveLength(1);
    // The update keeps every rule: a non-compliant URI is refused on PUT too.
    const bad = await configure(reg.registration_client_uri, token, {
      method: 'PUT',
      body: JSON.stringify({ client_id: reg.client_id, redirect_uris: ['http://rp.example.com/cb'] }),
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe('invalid_redirect_uri');

    // A code obtained before the deletion cannot be exchanged after it.
    const config = await client.discovery(
      new URL(server.url),
      reg.client_id,
      { redirect_uris: [other] },
      client.None(),
      insecure,
    );
    const flow = await getCode(server, config, user, { redirect_uri: other });
    const del = await configure(reg.registration_client_uri, token, { method: 'DELETE' });
    expect(del.status).toBe(204);
    const removed = await server.app.database.db
      .select()
      .from(events)
      .where(eq(events.eventType, 'project.application.removed'));
    expect(removed.some((e) => (e.payload as any).clientId === reg.client_id)).toBe(true);
    await expect(
      client.authorizationCodeGrant(config, flow.landed, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
      }),
    ).rejects.toMatchObject({ error: 'invalid_client' });
    expect((await configure(reg.registration_client_uri, token)).status).toBe(401);
  });

  it("client A's registration token does not open client B; a missing or wrong one is 401 invalid_token", async () => {
    const a = await (await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })).json();
    const b = await (await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })).json();
    for (const [uri, token] of [
      [b.registration_client_uri, a.registration_access_token],
      [b.registration_client_uri, undefined],
      [b.registration_client_uri, `${b.registration_access_token}x`],
    ]) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const body =
          method === 'PUT' ? JSON.stringify({ client_id: b.client_id, redirect_uris: [REDIRECT] }) : undefined;
        const res = await configure(uri, token, { method, body });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toContain('invalid_token');
        expect((await res.json()).error).toBe('invalid_token');
      }
    }
    // An application created through the API has no registration token: no token opens it.
    const apiApp = await addOidcApp(server, project);
    const apiUri = `${server.url}/oauth/v2/register/${encodeURIComponent(apiApp.clientId)}`;
    for (const token of [undefined, '', a.registration_access_token]) {
      expect((await configure(apiUri, token, { method: 'DELETE' })).status).toBe(401);
    }
    // B is untouched.
    expect((await configure(b.registration_client_uri, b.registration_access_token)).status).toBe(200);
  });

  it('registration while OFF is refused and discovery has no registration_endpoint', async () => {
    const on = await (await fetch(`${server.url}/.well-known/openid-configuration`)).json();
    expect(on.registration_endpoint).toBe(`${server.url}/oauth/v2/register`);
    const reg = await (await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })).json();
    await settings({ dynamicRegistration: 'OFF' });
    const off = await (await fetch(`${server.url}/.well-known/openid-configuration`)).json();
    expect(off.registration_endpoint).toBeUndefined();
    const res = await register({ redirect_uris: [REDIRECT] });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'access_denied', error_description: expect.stringMatching(/off/) });
    // Existing registrations cannot be changed either while it is off.
    expect((await configure(reg.registration_client_uri, reg.registration_access_token)).status).toBe(403);
  });

  it('INITIAL_ACCESS_TOKEN mode: no token and a wrong one are 401, the right one registers', async () => {
    // Through the API: the token is write-only.
    const api = server.client(InstanceService);
    await api.updateInstanceSettings({
      dynamicRegistration: DynamicRegistration.INITIAL_ACCESS_TOKEN,
      dynamicRegistrationInitialAccessToken: IAT,
    });
    const { settings: read } = await api.getInstanceSettings({});
    expect(read?.dynamicRegistration).toBe(DynamicRegistration.INITIAL_ACCESS_TOKEN);
    expect(read?.dynamicRegistrationInitialAccessTokenSet).toBe(true);
    expect(JSON.stringify(read)).not.toContain('hmac');
    const last = await server.app.database.db
      .select()
      .from(events)
      .where(eq(events.eventType, 'instance.settings.changed'));
    expect(JSON.stringify(last.at(-1)?.payload)).not.toMatch(/hmac|initial-access-token/);

    const meta = { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };
    const none = await register(meta);
    expect(none.status).toBe(401);
    expect((await none.json()).error).toBe('invalid_token');
    expect((await register(meta, { authorization: `Bearer ${IAT}x` })).status).toBe(401);
    expect((await register(meta, { authorization: `Basic ${IAT}` })).status).toBe(401);
    const config = await client.dynamicClientRegistration(new URL(server.url), meta, client.None(), {
      ...insecure,
      initialAccessToken: IAT,
    });
    expect(config.clientMetadata().client_id).toEqual(expect.any(String));
    // A short token is refused by the settings.
    await expect(api.updateInstanceSettings({ dynamicRegistrationInitialAccessToken: 'short' })).rejects.toThrow(
      /initial_access_token/,
    );
  });

  it('non-compliant and dangerous redirect URIs are invalid_redirect_uri', async () => {
    for (const uris of [
      ['http://rp.example.com/cb'],
      ['javascript:alert(1)'],
      ['https://rp.example.com/cb#frag'],
      ['com.example.app:/cb'],
      ['not a uri'],
      [],
      'https://rp.example.com/cb',
    ]) {
      const res = await register({ redirect_uris: uris });
      expect(res.status, JSON.stringify(uris)).toBe(400);
      expect((await res.json()).error, JSON.stringify(uris)).toBe('invalid_redirect_uri');
    }
    const logout = await register({ redirect_uris: [REDIRECT], post_logout_redirect_uris: ['javascript:alert(1)'] });
    expect((await logout.json()).error).toBe('invalid_redirect_uri');
    // A native app may use its custom scheme and loopback http.
    const native = await register({
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['com.example.app:/cb', 'http://127.0.0.1:8123/cb'],
    });
    expect(native.status).toBe(201);
  });

  it('grant types not allowed by the instance, unknown values and garbage are 400, never 500', async () => {
    const bad = async (body: unknown, error: string, headers: Record<string, string> = {}) => {
      const res = await register(body, headers);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((await res.json()).error).toBe(error);
    };
    await bad(
      { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'implicit'] },
      'invalid_client_metadata',
    );
    await bad({ redirect_uris: [REDIRECT], grant_types: ['client_credentials'] }, 'invalid_client_metadata');
    await bad({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'tls_client_auth' }, 'invalid_client_metadata');
    await bad({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata');
    await bad({ redirect_uris: [REDIRECT], client_name: 42 }, 'invalid_client_metadata');
    await bad({ redirect_uris: [REDIRECT], application_type: 'browser' }, 'invalid_client_metadata');
    await bad('{"redirect_uris": [', 'invalid_client_metadata');
    await bad('[1,2,3]', 'invalid_client_metadata');
    await bad('null', 'invalid_client_metadata');
    await bad('\u0001garbage', 'invalid_client_metadata');
    // A NUL byte is refused by the HTTP layer's input guard before the endpoint, as on every route.
    await bad('{"client_name":"a\\u0000b"}', 'invalid_request');
    await bad({ redirect_uris: [REDIRECT] }, 'invalid_client_metadata', { 'content-type': 'text/plain' });
    // Allowed once the instance allows it.
    await settings({ dynamicRegistrationGrantTypes: ['authorization_code', 'implicit'] });
    const ok = await register({
      redirect_uris: [REDIRECT],
      grant_types: ['implicit'],
      response_types: ['id_token'],
      token_endpoint_auth_method: 'none',
    });
    expect(ok.status).toBe(201);
    const big = await register(JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'x'.repeat(2 * 1024 * 1024) }));
    expect(big.status).toBe(413);
  });

  it('private_key_jwt with inline jwks: the client signs with its own key; private keys are refused', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const kid = `k-${Date.now()}`;
    const jwk = { ...(await exportJWK(publicKey)), kid };
    const res = await register({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [jwk] },
    });
    expect(res.status).toBe(201);
    const reg = await res.json();
    expect(reg.client_secret).toBeUndefined();
    expect(reg.jwks.keys[0]).toMatchObject({ kid, kty: 'EC', x: jwk.x });
    const config = await client.discovery(
      new URL(server.url),
      reg.client_id,
      { redirect_uris: [REDIRECT] },
      client.PrivateKeyJwt({ key: privateKey, kid }),
      insecure,
    );
    const { tokens } = await codeFlowTokens(server, config, user);
    expect(tokens.claims()?.sub).toBe(user.id);
    // Someone else cannot take the kid (client assertions are matched by it).
    const again = await register({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [jwk] },
    });
    expect((await again.json()).error).toBe('invalid_client_metadata');
    const priv = { ...(await exportJWK(privateKey)), kid: 'other' };
    const refused = await register({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [priv] },
    });
    expect((await refused.json()).error).toBe('invalid_client_metadata');
    // A forged assertion signed by another key is refused at the token endpoint.
    const other = await generateKeyPair('ES256');
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(reg.client_id)
      .setSubject(reg.client_id)
      .setAudience(server.url)
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(other.privateKey);
    const tok = await fetch(`${server.url}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'x',
        redirect_uri: REDIRECT,
        client_id: reg.client_id,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: forged,
      }),
    });
    expect(tok.status).toBe(401);
  });

  it('registration is rate-limited by source address (429 with Retry-After), before the body is read', async () => {
    await settings({ tokenRateLimitPerAddress: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await register('garbage')).status);
      expect(statuses.slice(0, 3)).toEqual([400, 400, 400]);
      const limited = await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await limited.json()).error).toBe('temporarily_unavailable');
    } finally {
      await settings({ tokenRateLimitPerAddress: 1_000_000 });
    }
  });

  it('settings: registration needs an existing project; unused self-registered clients are removed', async () => {
    await expect(settings({ dynamicRegistrationProjectId: 'no-such-project' })).rejects.toThrow(/not found/);
    await expect(settings({ dynamicRegistrationGrantTypes: ['password'] })).rejects.toThrow(/password/);
    const unused = await (await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })).json();
    const used = await client.dynamicClientRegistration(
      new URL(server.url),
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      client.None(),
      insecure,
    );
    await codeFlowTokens(server, used, user);
    // Both registered "long ago".
    const db = server.app.database.db;
    for (const id of [unused.client_id, used.clientMetadata().client_id])
      await db
        .update(applications)
        .set({ createdAt: new Date(Date.now() - 3600_000) })
        .where(eq(applications.clientId, id));
    expect(await pruneUnusedRegisteredClients(systemCtx(server), 0)).toEqual([]);
    const removed = await pruneUnusedRegisteredClients(systemCtx(server), 60);
    expect(removed).toContain(unused.client_id);
    expect(removed).not.toContain(used.clientMetadata().client_id);
    expect((await configure(unused.registration_client_uri, unused.registration_access_token)).status).toBe(401);
    const [kept] = await db
      .select()
      .from(applications)
      .where(eq(applications.clientId, used.clientMetadata().client_id));
    expect(kept.state).toBe('ACTIVE');
    expect(kept.firstTokenAt).toBeInstanceOf(Date);
  });
});
