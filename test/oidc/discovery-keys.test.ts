import * as client from 'openid-client';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { WebKeyAlgorithm, WebKeyState } from '../../gen/portcullis/instance/v2/web_key_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRelyingParty, codeFlowTokens, rp } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

describe('discovery and signing keys', () => {
  let server: TestServer;
  let config: client.Configuration;
  let user: Awaited<ReturnType<typeof addUser>>;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server, { apiClient: true });
    user = await addUser(server);
  });
  afterAll(() => server?.stop());

  it('discovery lists every endpoint and the supported values; no OAuth AS metadata endpoint', async () => {
    const d = await (await fetch(`${server.url}/.well-known/openid-configuration`)).json();
    expect(d.issuer).toBe(server.url);
    expect(d).toMatchObject({
      authorization_endpoint: `${server.url}/oauth/v2/authorize`,
      token_endpoint: `${server.url}/oauth/v2/token`,
      introspection_endpoint: `${server.url}/oauth/v2/introspect`,
      userinfo_endpoint: `${server.url}/oidc/v1/userinfo`,
      revocation_endpoint: `${server.url}/oauth/v2/revoke`,
      end_session_endpoint: `${server.url}/oidc/v1/end_session`,
      jwks_uri: `${server.url}/oauth/v2/keys`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'private_key_jwt'],
    });
    expect(d.scopes_supported).toEqual(['openid', 'profile', 'email', 'phone', 'offline_access']);
    expect(d.response_types_supported).toEqual(['code', 'id_token', 'id_token token']);
    expect(d.response_modes_supported).toEqual(['query', 'fragment', 'form_post']);
    expect(d.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(d.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt']),
    );
    expect(d.ui_locales_supported).toEqual(['en', 'de']);
    expect((await fetch(`${server.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
  });

  it('JWKS: keys with kid, cacheable; a published successor exists before it signs', async () => {
    const res = await fetch(`${server.url}/oauth/v2/keys`);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const { keys } = await res.json();
    expect(keys.length).toBeGreaterThanOrEqual(2);
    for (const k of keys) {
      expect(k.kid).toBeTruthy();
      expect(k.d).toBeUndefined();
      expect(k.alg).toBe('RS256');
    }
  });

  it('rotation on demand: new key published first; once active, new tokens use it, old ones still verify', async () => {
    const keysApi = server.client(InstanceService);
    const before = await codeFlowTokens(server, config, user);
    const oldKid = decodeProtectedHeader(before.tokens.id_token!).kid;
    const created = await keysApi.createWebKey({ algorithm: WebKeyAlgorithm.ES256 });
    const jwks = await (await fetch(`${server.url}/oauth/v2/keys`)).json();
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(created.keyId);
    // published, not signing yet
    const stillOld = await codeFlowTokens(server, config, user);
    expect(decodeProtectedHeader(stillOld.tokens.id_token!).kid).toBe(oldKid);
    await keysApi.activateWebKey({ keyId: created.keyId });
    const fresh = await rp(server, config.clientMetadata().client_id, config.clientMetadata().client_secret as string);
    const after = await codeFlowTokens(server, fresh, user);
    const header = decodeProtectedHeader(after.tokens.id_token!);
    expect(header.kid).toBe(created.keyId);
    expect(header.alg).toBe('ES256');
    // the old key is still published: the old ID token still verifies, as a hint too
    const list = await keysApi.listWebKeys({});
    expect(list.webKeys.find((k) => k.id === oldKid)?.state).toBe(WebKeyState.INACTIVE);
    const jwks2 = await (await fetch(`${server.url}/oauth/v2/keys`)).json();
    expect(jwks2.keys.map((k: { kid: string }) => k.kid)).toEqual(expect.arrayContaining([oldKid, created.keyId]));
    const none = await before.browser.request(
      client
        .buildAuthorizationUrl(fresh, {
          redirect_uri: 'https://rp.example.com/cb',
          scope: 'openid',
          prompt: 'none',
          id_token_hint: before.tokens.id_token!,
        })
        .toString(),
    );
    expect(new URL(none.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    // the active key cannot be deleted
    await expect(keysApi.deleteWebKey({ keyId: created.keyId })).rejects.toThrow(/active/);
  });

  it('EdDSA keys sign ID tokens that openid-client verifies', async () => {
    const keysApi = server.client(InstanceService);
    const created = await keysApi.createWebKey({ algorithm: WebKeyAlgorithm.EDDSA });
    await keysApi.activateWebKey({ keyId: created.keyId });
    const fresh = await rp(server, config.clientMetadata().client_id, config.clientMetadata().client_secret as string);
    const { tokens } = await codeFlowTokens(server, fresh, user);
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('EdDSA');
    expect(tokens.claims()!.sub).toBe(user.id);
  });

  it('web key RPCs need instance permissions', async () => {
    const { tokens } = await codeFlowTokens(server, config, user, {
      scope: 'openid urn:service:iam:org:project:id:api:aud',
    });
    await expect(server.client(InstanceService, { token: tokens.access_token }).listWebKeys({})).rejects.toThrow(
      /iam.read/,
    );
  });
});

describe('scheduled key rotation and keys at rest', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('rotates when the active key outlives the interval, once the successor was published long enough', async () => {
    const { rotateKeysIfDue } = await import('../../src/domain/oidc/web-keys');
    const { loadMasterKey } = await import('../../src/crypto/keys/master-key');
    const { systemCtx } = await import('../helpers/context');
    const db = server.app.database.db;
    const keysBefore = (await (await fetch(`${server.url}/oauth/v2/keys`)).json()).keys.map(
      (k: { kid: string }) => k.kid,
    );
    const list = await server.client(InstanceService).listWebKeys({});
    const active = list.webKeys.find((k) => k.state === WebKeyState.ACTIVE)!;
    const next = list.webKeys.find((k) => k.state === WebKeyState.INITIAL)!;
    expect(keysBefore).toEqual(expect.arrayContaining([active.id, next.id]));
    const masterKey = loadMasterKey(server.app.config);
    // not due yet
    expect(await rotateKeysIfDue(systemCtx(server), masterKey, 3_600_000)).toBe(false);
    // pretend both keys are an hour old: the successor has been published for longer than the JWKS max-age.
    // Written by hand on purpose: no API moves a key's age, and the test must not wait an hour.
    await db.execute(
      `update web_keys set created_at = now() - interval '1 hour', activated_at = now() - interval '1 hour'`,
    );
    expect(await rotateKeysIfDue(systemCtx(server), masterKey, 60_000)).toBe(true);
    const after = await server.client(InstanceService).listWebKeys({});
    expect(after.webKeys.find((k) => k.id === next.id)?.state).toBe(WebKeyState.ACTIVE);
    expect(after.webKeys.find((k) => k.id === active.id)?.state).toBe(WebKeyState.INACTIVE);
    expect(after.webKeys.filter((k) => k.state === WebKeyState.INITIAL)).toHaveLength(1);
    const jwks = (await (await fetch(`${server.url}/oauth/v2/keys`)).json()).keys.map((k: { kid: string }) => k.kid);
    expect(jwks).toEqual(expect.arrayContaining([active.id, next.id]));
  });

  it('private keys are stored encrypted with the master key', async () => {
    const rows = await server.app.database.db.execute('select private_key_encrypted from web_keys');
    for (const r of ((rows as any).rows ?? rows) as { private_key_encrypted: string }[]) {
      expect(r.private_key_encrypted).toMatch(/^v1\./);
      expect(r.private_key_encrypted).not.toContain('"d"');
    }
  });
});
