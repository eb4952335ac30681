import { type CryptoKey, importPKCS8, SignJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplicationKey } from '../../src/domain/application/keys';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { postFormJson } from '../helpers/forms';
import { rp } from '../helpers/login-flow';
import { rows } from '../helpers/rows';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** A configuration that meets FAPI 2.0: what an operator sets for such a client. */
const FAPI_CONFIG = {
  securityProfile: 'FAPI_2_0',
  applicationType: 'WEB',
  authMethodType: 'PRIVATE_KEY_JWT',
  requirePushedAuthorizationRequests: true,
  dpopBoundAccessTokens: true,
  responseTypes: ['CODE'],
  grantTypes: ['AUTHORIZATION_CODE', 'REFRESH_TOKEN'],
};

/** The FAPI 2.0 security profile per application: checked when saved and at every request. */
describe('FAPI 2.0 security profile', () => {
  let server: TestServer;
  let project: string;
  let user: Awaited<ReturnType<typeof addUser>>;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let key: CryptoKey;
  let kid: string;

  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    user = await addUser(server);
    app = await addOidcApp(server, project, FAPI_CONFIG);
    const { keyFile } = await createApplicationKey(systemCtx(server), { applicationId: app.applicationId });
    key = await importPKCS8(keyFile.key, 'PS256');
    kid = keyFile.keyId;
  });
  afterAll(() => server?.stop());

  const post = (method: string, body: unknown) =>
    server.fetch(`/portcullis.application.v2.ApplicationService/${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  const pkce = async () => {
    const verifier = client.randomPKCECodeVerifier();
    return { verifier, challenge: await client.calculatePKCECodeChallenge(verifier) };
  };

  /** A client assertion as the client would sign it; the options are what an attacker varies. */
  async function assertion(opts: { alg?: string; aud?: string | string[]; signWith?: CryptoKey } = {}) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: opts.alg ?? 'PS256', kid })
      .setIssuer(app.clientId)
      .setSubject(app.clientId)
      .setAudience(opts.aud ?? server.url)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(opts.signWith ?? key);
  }

  async function push(extra: Record<string, string> = {}, auth: Record<string, string> = {}) {
    const { challenge } = await pkce();
    return postFormJson(server, '/oauth/v2/par', {
      client_id: app.clientId,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: await assertion(),
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
      ...auth,
    });
  }

  /**
   * The relying party pushes its request through PAR (with a DPoP key of `dpopAlg`, if given) and the user
   * signs in: what a code exchange needs next.
   */
  async function pushAndSignIn(dpopAlg?: string) {
    const config = await rp(server, app.clientId, {}, client.PrivateKeyJwt({ key, kid }));
    const DPoP = dpopAlg ? client.getDPoPHandle(config, await client.randomDPoPKeyPair(dpopAlg)) : undefined;
    const { verifier, challenge } = await pkce();
    const state = client.randomState();
    const url = await client.buildAuthorizationUrlWithPAR(
      config,
      { redirect_uri: REDIRECT, scope: 'openid', state, code_challenge: challenge, code_challenge_method: 'S256' },
      { DPoP },
    );
    const landed = new URL(await new Browser(server.url).login(url.toString(), user.username, user.password));
    return { config, DPoP, landed, checks: { pkceCodeVerifier: verifier, expectedState: state } };
  }

  it('openid-client runs the FAPI 2.0 flow: PAR, PKCE, PS256 private_key_jwt, DPoP tokens, iss', async () => {
    const { config, DPoP, landed, checks } = await pushAndSignIn('ES256');
    // RFC 9207: the response names the issuer; openid-client refuses a response without it
    expect(landed.searchParams.get('iss')).toBe(server.url);
    const tokens = await client.authorizationCodeGrant(config, landed, checks, undefined, { DPoP });
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    expect(tokens.claims()!.sub).toBe(user.id);
    const info = await client.fetchUserInfo(config, tokens.access_token, user.id, { DPoP });
    expect(info.sub).toBe(user.id);
  });

  describe('configuration time', () => {
    it('refuses a FAPI 2.0 client that lacks what the profile needs, naming each part', async () => {
      const res = await post('CreateApplication', {
        projectId: project,
        name: 'Bank',
        oidc: {
          redirectUris: ['http://localhost:3000/cb'],
          responseTypes: ['OIDC_RESPONSE_TYPE_CODE', 'OIDC_RESPONSE_TYPE_ID_TOKEN'],
          grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_IMPLICIT'],
          applicationType: 'OIDC_APPLICATION_TYPE_WEB',
          authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
          securityProfile: 'OIDC_SECURITY_PROFILE_FAPI_2_0',
        },
      });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.code).toBe('invalid_argument');
      for (const part of [
        'auth_method_type PRIVATE_KEY_JWT',
        'require_pushed_authorization_requests true',
        'dpop_bound_access_tokens true',
        'response_types CODE only',
        'no implicit',
        'https redirect URIs only',
      ])
        expect(body.message).toContain(part);
    });

    it('accepts a compliant one over the API and shows its profile', async () => {
      const res = await post('CreateApplication', {
        projectId: project,
        name: 'Bank ok',
        oidc: {
          redirectUris: ['https://bank.example.com/cb'],
          responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
          grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE'],
          applicationType: 'OIDC_APPLICATION_TYPE_WEB',
          authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT',
          requirePushedAuthorizationRequests: true,
          dpopBoundAccessTokens: true,
          securityProfile: 'OIDC_SECURITY_PROFILE_FAPI_2_0',
        },
      });
      expect(res.status).toBe(200);
      const { applicationId } = await res.json();
      const got = await (await post('GetApplication', { applicationId })).json();
      expect(got.application.oidc.securityProfile).toBe('OIDC_SECURITY_PROFILE_FAPI_2_0');
      expect(got.application.oidc.dpopBoundAccessTokens).toBe(true);
    });

    it('refuses an update that would weaken a FAPI 2.0 client (implicit, no PAR, no DPoP)', async () => {
      for (const oidc of [
        { grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_IMPLICIT'] },
        { requirePushedAuthorizationRequests: false },
        { dpopBoundAccessTokens: false },
        { authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC' },
      ]) {
        const res = await post('UpdateApplication', { applicationId: app.applicationId, oidc });
        expect(res.status, JSON.stringify(oidc)).toBe(400);
        expect((await res.json()).message).toContain('FAPI_2_0 needs');
      }
      const [row] = await rows(server, `select oidc as config from applications where id = '${app.applicationId}'`);
      expect(row.config).toMatchObject({ securityProfile: 'FAPI_2_0', requirePushedAuthorizationRequests: true });
    });
  });

  describe('request time', () => {
    it('refuses an authorization request that did not come through PAR', async () => {
      const { challenge } = await pkce();
      const query = new URLSearchParams({
        client_id: app.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const res = await fetch(`${server.url}/oauth/v2/authorize?${query}`, { redirect: 'manual' });
      const location = new URL(res.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('iss')).toBe(server.url);
    });

    it('refuses a pushed request without PKCE', async () => {
      const noPkce = await postFormJson(server, '/oauth/v2/par', {
        client_id: app.clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await assertion(),
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
      });
      expect(noPkce.status).toBe(400);
      expect(noPkce.body.error).toBe('invalid_request');
      expect(noPkce.body.error_description).toContain('PKCE');
    });

    it('accepts a correct client assertion at PAR', async () => {
      const res = await push();
      expect(res.status).toBe(201);
    });

    it('refuses client assertions outside the profile: RS256, aud the token endpoint, aud as an array', async () => {
      const rsKey = await importPKCS8((await keyFileOf()).key, 'RS256');
      for (const [why, a] of [
        ['RS256', await assertion({ alg: 'RS256', signWith: rsKey })],
        ['aud = token endpoint', await assertion({ aud: `${server.url}/oauth/v2/token` })],
        ['aud = array', await assertion({ aud: [server.url] })],
      ] as const) {
        const res = await push({}, { client_assertion: a });
        expect(res.status, why).toBe(401);
        expect(res.body.error, why).toBe('invalid_client');
      }
    });

    it('refuses every request of a client whose stored configuration no longer meets the profile', async () => {
      const weak = await addOidcApp(server, project, FAPI_CONFIG);
      const { keyFile } = await createApplicationKey(systemCtx(server), { applicationId: weak.applicationId });
      const weakKey = await importPKCS8(keyFile.key, 'PS256');
      // as an older row or an import could hold it: the profile set, PAR no longer required
      await rows(
        server,
        `update applications set oidc = oidc || '{"requirePushedAuthorizationRequests": false}'::jsonb
         where id = '${weak.applicationId}'`,
      );
      await new Promise((r) => setTimeout(r, 2100)); // the client cache's longest life
      const now = Math.floor(Date.now() / 1000);
      const signed = await new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'PS256', kid: keyFile.keyId })
        .setIssuer(weak.clientId)
        .setSubject(weak.clientId)
        .setAudience(server.url)
        .setIssuedAt(now)
        .setExpirationTime(now + 60)
        .sign(weakKey);
      const { challenge } = await pkce();
      const par = await postFormJson(server, '/oauth/v2/par', {
        client_id: weak.clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: signed,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      expect(par.status).toBe(400);
      expect(par.body.error).toBe('unauthorized_client');
      expect(par.body.error_description).toContain('require_pushed_authorization_requests');
      const query = new URLSearchParams({
        client_id: weak.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const res = await fetch(`${server.url}/oauth/v2/authorize?${query}`, { redirect: 'manual' });
      expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('unauthorized_client');
    });

    it('refuses a DPoP proof signed with RS256 (outside the profile) at the code exchange', async () => {
      const { config, DPoP, landed, checks } = await pushAndSignIn('RS256');
      await expect(client.authorizationCodeGrant(config, landed, checks, undefined, { DPoP })).rejects.toMatchObject({
        error: 'invalid_dpop_proof',
      });
    });

    it('refuses a code exchange without a DPoP proof', async () => {
      const { config, landed, checks } = await pushAndSignIn();
      await expect(client.authorizationCodeGrant(config, landed, checks)).rejects.toMatchObject({
        error: expect.stringMatching(/invalid_dpop_proof|invalid_request/),
      });
    });
  });

  async function keyFileOf() {
    // a second key of the same client: RS256 over RSA is what the profile forbids, not the key
    const { keyFile } = await createApplicationKey(systemCtx(server), { applicationId: app.applicationId });
    return keyFile;
  }
});
