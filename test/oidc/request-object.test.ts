import { generateKeyPairSync } from 'node:crypto';
import { type CryptoKey, importPKCS8, SignJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplicationKey } from '../../src/domain/application/keys';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { basic, postFormJson } from '../helpers/forms';
import { rp } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** Signed request objects (RFC 9101, OIDC Core §6.1) at the authorization and PAR endpoints. */
describe('request objects', () => {
  let server: TestServer;
  let project: string;
  let user: Awaited<ReturnType<typeof addUser>>;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let key: CryptoKey;
  let kid: string;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    user = await addUser(server);
    app = await addOidcApp(server, project, { authMethodType: 'PRIVATE_KEY_JWT' });
    const { keyFile } = await createApplicationKey(systemCtx(server), { applicationId: app.applicationId });
    key = await importPKCS8(keyFile.key, 'RS256');
    kid = keyFile.keyId;
    config = await rp(server, app.clientId, {}, client.PrivateKeyJwt({ key, kid }));
  });
  afterAll(() => server?.stop());

  const pkce = async () => {
    const verifier = client.randomPKCECodeVerifier();
    return { verifier, challenge: await client.calculatePKCECodeChallenge(verifier) };
  };

  /** A request object as a client would sign it; `claims` and `opts` change what a test needs. */
  async function sign(
    claims: Record<string, unknown> = {},
    opts: { key?: CryptoKey; kid?: string; aud?: string; exp?: number } = {},
  ) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      client_id: app.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: (await pkce()).challenge,
      code_challenge_method: 'S256',
      ...claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? kid })
      .setIssuer(app.clientId)
      .setAudience(opts.aud ?? server.url)
      .setIssuedAt(now)
      .setExpirationTime(opts.exp ?? now + 60)
      .sign(opts.key ?? key);
  }

  const authorize = (params: Record<string, string>) =>
    fetch(`${server.url}/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, ...params })}`, {
      redirect: 'manual',
    });

  /** The refusal of a bad request object at the authorization endpoint: an error page, no redirect. */
  async function refusedAtAuthorize(request: string, contains: string) {
    const res = await authorize({ request, response_type: 'code' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain(contains);
  }

  it('openid-client signs the request (JAR); sign-in and tokens follow it', async () => {
    const { verifier, challenge } = await pkce();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = await client.buildAuthorizationUrlWithJAR(
      config,
      {
        redirect_uri: REDIRECT,
        scope: 'openid email',
        state,
        nonce,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
      { key, kid },
    );
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request']);
    const landed = new URL(await new Browser(server.url).login(url.toString(), user.username, user.password));
    const tokens = await client.authorizationCodeGrant(config, landed, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(tokens.claims()).toMatchObject({ sub: user.id, nonce });
    expect(tokens.scope).toBe('openid email');
  });

  it("the object's claims override the query's parameters", async () => {
    const { verifier, challenge } = await pkce();
    const request = await sign({ scope: 'openid email', state: 'signed', code_challenge: challenge });
    const url = `${server.url}/oauth/v2/authorize?${new URLSearchParams({
      client_id: app.clientId,
      response_type: 'code',
      scope: 'openid phone',
      state: 'forged',
      request,
    })}`;
    const landed = new URL(await new Browser(server.url).login(url, user.username, user.password));
    expect(landed.searchParams.get('state')).toBe('signed');
    const tokens = await client.authorizationCodeGrant(config, landed, {
      pkceCodeVerifier: verifier,
      expectedState: 'signed',
    });
    expect(tokens.scope).toBe('openid email');
  });

  it('a signed request pushed to the PAR endpoint is verified there and used through its request_uri', async () => {
    const { verifier, challenge } = await pkce();
    const request = await sign({ state: 'pushed', code_challenge: challenge });
    const url = await client.buildAuthorizationUrlWithPAR(config, { request });
    const landed = new URL(await new Browser(server.url).login(url.toString(), user.username, user.password));
    const tokens = await client.authorizationCodeGrant(config, landed, {
      pkceCodeVerifier: verifier,
      expectedState: 'pushed',
    });
    expect(tokens.claims()!.sub).toBe(user.id);
  });

  it('refuses an object signed with a foreign key, at authorize and at PAR', async () => {
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const forged = await sign({}, { key: foreign as unknown as CryptoKey });
    await refusedAtAuthorize(forged, 'does not match a registered key');
    const pushed = await client.buildAuthorizationUrlWithPAR(config, { request: forged }).catch((e) => e);
    expect(pushed).toBeInstanceOf(client.ResponseBodyError);
    expect(pushed.error).toBe('invalid_request_object');
  });

  it('refuses an expired object and one for another audience', async () => {
    const past = Math.floor(Date.now() / 1000) - 120;
    await refusedAtAuthorize(await sign({}, { exp: past }), 'exp');
    await refusedAtAuthorize(await sign({}, { aud: 'https://other-issuer.example.com' }), 'aud must be the issuer');
    await refusedAtAuthorize(await sign({}, { exp: Math.floor(Date.now() / 1000) + 365 * 24 * 3600 }), 'seconds ahead');
  });

  it('a request object with a jti starts one sign-in: replayed at authorize or at PAR it is refused', async () => {
    const request = await sign({ jti: `ro-${Date.now()}` });
    const first = await authorize({ request, response_type: 'code' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toContain('/ui/login/');
    await refusedAtAuthorize(request, 'jti was already used');
    const pushed = await client.buildAuthorizationUrlWithPAR(config, { request }).catch((e) => e);
    expect(pushed).toBeInstanceOf(client.ResponseBodyError);
    expect(pushed.error).toBe('invalid_request_object');
    // a new object (a new jti) is fine
    expect((await authorize({ request: await sign({ jti: `ro2-${Date.now()}` }), response_type: 'code' })).status).toBe(
      303,
    );
  });

  it('refuses alg none and an unsigned object', async () => {
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claims = {
      iss: app.clientId,
      aud: server.url,
      exp: Math.floor(Date.now() / 1000) + 60,
      client_id: app.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
    };
    const none = `${b64({ alg: 'none' })}.${b64(claims)}.`;
    await refusedAtAuthorize(none, 'algorithm none is not accepted');
    await refusedAtAuthorize(b64(claims), 'not a JWS');
    const pushed = await client.buildAuthorizationUrlWithPAR(config, { request: none }).catch((e) => e);
    expect(pushed).toBeInstanceOf(client.ResponseBodyError);
    expect(pushed.error).toBe('invalid_request_object');
  });

  it('refuses an object whose client_id or response_type differs, or that names another issuer', async () => {
    const other = await addOidcApp(server, project);
    await refusedAtAuthorize(await sign({ client_id: other.clientId }), 'client_id in the request object differs');
    await refusedAtAuthorize(await sign({ response_type: 'id_token' }), 'response_type in the request object differs');
    const badIss = await new SignJWT({ client_id: app.clientId, response_type: 'code' })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(other.clientId)
      .setAudience(server.url)
      .setExpirationTime('1m')
      .sign(key);
    await refusedAtAuthorize(badIss, 'iss must be the client id');
  });

  it('an object cannot smuggle in an unregistered redirect_uri', async () => {
    const res = await authorize({ request: await sign({ redirect_uri: 'https://evil.example.com/cb' }) });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('a client without keys gets invalid_request_object with a clear description', async () => {
    const secretApp = await addOidcApp(server, project);
    const jwt = await new SignJWT({ client_id: secretApp.clientId, response_type: 'code' })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(secretApp.clientId)
      .setAudience(server.url)
      .setExpirationTime('1m')
      .sign(key);
    const res = await postFormJson(
      server,
      '/oauth/v2/par',
      { request: jwt },
      { authorization: basic(secretApp.clientId, secretApp.clientSecret!) },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request_object');
    expect(res.body.error_description).toContain('no registered keys');
  });
});
