import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOidcApp, addProject, REDIRECT } from '../../helpers/apps';
import { basic, postFormJson } from '../../helpers/forms';
import { decodePayload } from '../../helpers/jwt-grants';
import { getCode, rp } from '../../helpers/login-flow';
import { addMachine } from '../../helpers/machines';
import { type DpopKey, dpopKey, proof } from '../../helpers/dpop';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addUser } from '../../helpers/users';

/**
 * Sender-constrained tokens end to end (RFC 9449): openid-client's DPoP() drives the code flow,
 * refresh, userinfo and client credentials; raw HTTP with jose-made proofs plays the attacker who
 * holds a bound token (or refresh token) but not its private key.
 */
describe('DPoP-bound tokens', () => {
  let server: TestServer;
  let project: string;
  let user: Awaited<ReturnType<typeof addUser>>;
  let userinfoUrl: string;
  let tokenUrl: string;
  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    user = await addUser(server);
    userinfoUrl = `${server.url}/oidc/v1/userinfo`;
    tokenUrl = `${server.url}/oauth/v2/token`;
  });
  afterAll(() => server?.stop());

  /** The code flow through openid-client with a DPoP key; the tokens and what it needs to go on. */
  async function signIn(config: client.Configuration) {
    const keyPair = await client.randomDPoPKeyPair('ES256');
    const dpop = client.getDPoPHandle(config, keyPair);
    const r = await getCode(server, config, user);
    const tokens = await client.authorizationCodeGrant(
      config,
      r.landed,
      { pkceCodeVerifier: r.verifier, expectedState: r.state },
      undefined,
      { DPoP: dpop },
    );
    return { tokens, dpop, keyPair };
  }

  const userinfo = async (authorization: string, dpop?: string) => {
    const res = await fetch(userinfoUrl, { headers: { authorization, ...(dpop ? { dpop } : {}) } });
    return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '', body: await res.json() };
  };

  describe('a confidential client with JWT access tokens', () => {
    let app: Awaited<ReturnType<typeof addOidcApp>>;
    let config: client.Configuration;
    let signedIn: Awaited<ReturnType<typeof signIn>>;
    let jkt: string;
    beforeAll(async () => {
      app = await addOidcApp(server, project, { accessTokenType: 'JWT' });
      config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
      signedIn = await signIn(config);
      jkt = decodePayload(signedIn.tokens.access_token).cnf?.jkt;
    });

    it('issues token_type DPoP and binds the JWT to the key (cnf.jkt); userinfo works with a proof', async () => {
      expect(signedIn.tokens.token_type).toBe('dpop');
      const { calculateJwkThumbprint, exportJWK } = await import('jose');
      expect(jkt).toBe(await calculateJwkThumbprint(await exportJWK(signedIn.keyPair.publicKey)));
      const claims = await client.fetchUserInfo(config, signedIn.tokens.access_token, user.id, {
        DPoP: signedIn.dpop,
      });
      expect(claims.sub).toBe(user.id);
    });

    it('introspection shows token_type DPoP and cnf.jkt', async () => {
      const r = await client.tokenIntrospection(config, signedIn.tokens.access_token);
      expect(r).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });
    });

    it('refuses the bound token as Bearer at userinfo, with a DPoP challenge naming the algorithms', async () => {
      const r = await userinfo(`Bearer ${signedIn.tokens.access_token}`);
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('invalid_token');
      expect(r.challenge).toMatch(/^DPoP error="invalid_token"/);
      expect(r.challenge).toMatch(/algs="[^"]*ES256/);
    });

    it('refuses proofs without ath, with a wrong ath, for another URL, replayed, or by another key', async () => {
      const at = signedIn.tokens.access_token;
      const attacker = await dpopKey();
      const cases: [string, string | undefined, string][] = [
        ['no proof', undefined, 'invalid_dpop_proof'],
        ['no ath', await proof(attacker, 'GET', userinfoUrl), 'invalid_dpop_proof'],
        ['wrong ath', await proof(attacker, 'GET', userinfoUrl, { token: `${at}x` }), 'invalid_dpop_proof'],
        ['other url', await proof(attacker, 'GET', tokenUrl, { token: at }), 'invalid_dpop_proof'],
        ['other key', await proof(attacker, 'GET', userinfoUrl, { token: at }), 'invalid_token'],
      ];
      for (const [name, p, code] of cases) {
        const r = await userinfo(`DPoP ${at}`, p);
        expect({ name, status: r.status, error: r.body.error }).toEqual({ name, status: 401, error: code });
        expect(r.challenge, name).toMatch(/^DPoP /);
      }
    });

    it('a proof seen once at userinfo is not accepted again', async () => {
      // the holder's own proof, made with openid-client's key, captured and replayed
      const key: DpopKey = {
        alg: 'ES256',
        privateKey: signedIn.keyPair.privateKey,
        publicKey: signedIn.keyPair.publicKey,
        jwk: await (await import('jose')).exportJWK(signedIn.keyPair.publicKey),
        jkt,
      };
      const at = signedIn.tokens.access_token;
      const p = await proof(key, 'GET', userinfoUrl, { token: at });
      expect((await userinfo(`DPoP ${at}`, p)).status).toBe(200);
      const again = await userinfo(`DPoP ${at}`, p);
      expect(again.status).toBe(401);
      expect(again.body.error_description).toMatch(/already used/);
    });
  });

  describe('a public client (PKCE, opaque tokens): the refresh token is bound too', () => {
    let app: Awaited<ReturnType<typeof addOidcApp>>;
    let config: client.Configuration;
    beforeAll(async () => {
      app = await addOidcApp(server, project, { authMethodType: 'NONE', applicationType: 'NATIVE' });
      config = await rp(server, app.clientId, { token_endpoint_auth_method: 'none' }, client.None());
    });

    it('refreshes only with a proof of the same key; a thief cannot even burn the refresh token', async () => {
      const { tokens, dpop } = await signIn(config);
      expect(tokens.token_type).toBe('dpop');
      const rt = tokens.refresh_token!;
      expect(rt).toBeTruthy();
      const refresh = (headers: Record<string, string>) =>
        postFormJson(
          server,
          '/oauth/v2/token',
          { grant_type: 'refresh_token', refresh_token: rt, client_id: app.clientId },
          headers,
        );
      const without = await refresh({});
      expect(without).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect(without.body.error_description).toMatch(/DPoP-bound/);
      const other = await refresh({ dpop: await proof(await dpopKey(), 'POST', tokenUrl) });
      expect(other).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect(other.body.error_description).toMatch(/another DPoP key/);
      // the holder refreshes with its key: new bound tokens, and the new refresh token is bound as well
      const next = await client.refreshTokenGrant(config, rt, undefined, { DPoP: dpop });
      expect(next.token_type).toBe('dpop');
      const again = await postFormJson(server, '/oauth/v2/token', {
        grant_type: 'refresh_token',
        refresh_token: next.refresh_token!,
        client_id: app.clientId,
      });
      expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect((await client.refreshTokenGrant(config, next.refresh_token!, undefined, { DPoP: dpop })).token_type).toBe(
        'dpop',
      );
    });
  });

  describe('an application with dpopBoundAccessTokens (nonce required)', () => {
    let app: Awaited<ReturnType<typeof addOidcApp>>;
    let config: client.Configuration;
    beforeAll(async () => {
      app = await addOidcApp(server, project, { dpopBoundAccessTokens: true });
      config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    });
    const exchange = (code: string, verifier: string, dpop?: string) =>
      fetch(tokenUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basic(app.clientId, app.clientSecret!),
          ...(dpop ? { dpop } : {}),
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
        }),
      });

    it('openid-client gets bound tokens (it retries with the DPoP-Nonce it is given)', async () => {
      const { tokens } = await signIn(config);
      expect(tokens.token_type).toBe('dpop');
    });

    it('refuses the code exchange without a proof, asks for the nonce, then issues', async () => {
      const { code, verifier } = await getCode(server, config, user);
      const none = await exchange(code, verifier);
      expect(none.status).toBe(400);
      expect((await none.json()).error).toBe('invalid_dpop_proof');
      const key = await dpopKey();
      const noNonce = await exchange(code, verifier, await proof(key, 'POST', tokenUrl));
      expect(noNonce.status).toBe(400);
      expect((await noNonce.json()).error).toBe('use_dpop_nonce');
      const nonce = noNonce.headers.get('dpop-nonce');
      expect(nonce).toBeTruthy();
      for (const wrong of ['x'.repeat(43), 'é'.repeat(43), nonce!.slice(1)]) {
        const bad = await exchange(code, verifier, await proof(key, 'POST', tokenUrl, { nonce: wrong }));
        expect({ wrong, status: bad.status, error: (await bad.json()).error }).toEqual({
          wrong,
          status: 400,
          error: 'use_dpop_nonce',
        });
      }
      const ok = await exchange(code, verifier, await proof(key, 'POST', tokenUrl, { nonce: nonce! }));
      const body = await ok.json();
      expect(ok.status).toBe(200);
      expect(body.token_type).toBe('DPoP');
      expect(ok.headers.get('dpop-nonce')).toBe(nonce);
      const intro = await client.tokenIntrospection(config, body.access_token);
      expect(intro).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
    });
  });

  describe('the v2 API', () => {
    it('takes a DPoP-bound machine token only with a proof for that RPC', async () => {
      const m = await addMachine(server);
      const key = await dpopKey();
      const issued = await postFormJson(
        server,
        '/oauth/v2/token',
        { grant_type: 'client_credentials', scope: 'openid' },
        { authorization: basic(m.username, m.clientSecret), dpop: await proof(key, 'POST', tokenUrl) },
      );
      expect(issued.body.token_type).toBe('DPoP');
      const at = issued.body.access_token as string;
      const rpc = `${server.url}/portcullis.user.v2.UserService/GetUserByID`;
      const call = (authorization: string, dpop?: string) =>
        fetch(rpc, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization, ...(dpop ? { dpop } : {}) },
          body: JSON.stringify({ userId: m.id }),
        });
      expect((await call(`Bearer ${at}`)).status).toBe(401);
      expect((await call(`DPoP ${at}`)).status).toBe(401);
      const otherRpc = `${server.url}/portcullis.user.v2.UserService/DeleteUser`;
      expect((await call(`DPoP ${at}`, await proof(key, 'POST', otherRpc, { token: at }))).status).toBe(401);
      expect((await call(`DPoP ${at}`, await proof(await dpopKey(), 'POST', rpc, { token: at }))).status).toBe(401);
      const ok = await call(`DPoP ${at}`, await proof(key, 'POST', rpc, { token: at }));
      expect(ok.status).toBe(200);
      expect((await ok.json()).user.userId).toBe(m.id);
    });
  });
});
