import { importPKCS8 } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplicationKey } from '../../src/domain/application/keys';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { basic, postFormJson } from '../helpers/forms';
import { pkceAuthUrl, rp } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { totpCode } from '../helpers/totp';
import { addUser } from '../helpers/users';

const MFA = 'urn:portcullis:acr:mfa';
const ONE_FA = 'urn:portcullis:acr:1fa';

/** The `claims` request parameter (OIDC Core §5.5) at authorize, in request objects and PAR, and what tokens carry. */
describe('the claims request parameter', () => {
  let server: TestServer;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let config: client.Configuration;
  let user: Awaited<ReturnType<typeof addUser>>;
  beforeAll(async () => {
    server = await startTestServer();
    app = await addOidcApp(server, await addProject(server));
    config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    user = await addUser(server);
  });
  afterAll(() => server?.stop());

  const claimsParam = (c: unknown) => JSON.stringify(c);
  const email = (u: { username: string }) => `${u.username}@example.com`;

  /** The code flow with a password sign-in up to the tokens; `extra` adds authorization parameters. */
  async function signIn(extra: Record<string, string>, who = user, browser = new Browser(server.url)) {
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 's', ...extra });
    const landed = await browser.login(url, who.username, who.password);
    const tokens = await client.authorizationCodeGrant(config, new URL(landed), {
      pkceCodeVerifier: verifier,
      expectedState: 's',
    });
    return { tokens, browser };
  }
  const userinfo = (accessToken: string) =>
    client.fetchUserInfo(config, accessToken, client.skipSubjectCheck) as Promise<Record<string, unknown>>;

  /** The error an authorization request is redirected with (the client and redirect URI are good). */
  async function authorizeError(params: Record<string, string>) {
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 's', ...params });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status, await res.clone().text()).toBeLessThan(500);
    const location = res.headers.get('location');
    expect(location).toMatch(/^https:\/\/rp\.example\.com\/cb\?/);
    const q = new URL(location!).searchParams;
    return { error: q.get('error'), description: q.get('error_description') ?? '' };
  }

  it('id_token: email in the ID token with scope openid only; not at userinfo', async () => {
    const { tokens } = await signIn({
      claims: claimsParam({ id_token: { email: null, given_name: { essential: true } } }),
    });
    // an access token is issued too, and still the client gets what it asked for by name
    expect(tokens.claims()).toMatchObject({ sub: user.id, email: email(user), given_name: 'Ada' });
    // only what was named: no email_verified, no family_name
    expect(tokens.claims()).not.toHaveProperty('email_verified');
    expect(tokens.claims()).not.toHaveProperty('family_name');
    const info = await userinfo(tokens.access_token);
    expect(info).toEqual({ sub: user.id });
  });

  it('userinfo: the claims are at userinfo, not in the ID token', async () => {
    const { tokens } = await signIn({
      claims: claimsParam({ userinfo: { email: null, email_verified: null, family_name: { essential: true } } }),
    });
    expect(tokens.claims()).not.toHaveProperty('email');
    expect(await userinfo(tokens.access_token)).toEqual({
      sub: user.id,
      email: email(user),
      email_verified: true,
      family_name: 'Lovelace',
    });
  });

  it('essential auth_time is in the ID token', async () => {
    const { tokens } = await signIn({ claims: claimsParam({ id_token: { auth_time: { essential: true } } }) });
    const authTime = tokens.claims()!.auth_time as number;
    expect(Math.abs(authTime - Date.now() / 1000)).toBeLessThan(60);
  });

  it('attack: a claim the user has no value for is never invented; unknown names are ignored', async () => {
    const asked = {
      phone_number: { essential: true },
      phone_number_verified: null,
      nickname: { essential: true, value: 'made-up' },
      locale: null,
      gender: null,
      'urn:service:iam:user:metadata': null,
      'urn:service:iam:org:project:roles': null,
      favourite_colour: { essential: true },
    };
    const { tokens } = await signIn({ claims: claimsParam({ id_token: asked, userinfo: asked }) });
    for (const claim of Object.keys(asked)) {
      expect(tokens.claims(), claim).not.toHaveProperty(claim);
    }
    expect(Object.keys(await userinfo(tokens.access_token))).toEqual(['sub']);
  });

  it('attack: malformed, mistyped or oversized claims are invalid_request at the redirect URI, no 500', async () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`c${i}`, null]));
    const bad: [string, RegExp][] = [
      ['not json', /not valid JSON/],
      ['{"id_token":', /not valid JSON/],
      ['[]', /must be a JSON object/],
      ['"email"', /must be a JSON object/],
      ['null', /must be a JSON object/],
      ['{"id_token":[]}', /claims.id_token must be an object/],
      ['{"userinfo":"email"}', /claims.userinfo must be an object/],
      ['{"id_token":{"email":5}}', /must be null or an object/],
      ['{"id_token":{"email":[true]}}', /must be null or an object/],
      ['{"id_token":{"email":{"essential":"yes"}}}', /essential must be true or false/],
      ['{"userinfo":{"email":{"values":"x"}}}', /values must be an array/],
      ['{"id_token":{"acr":{"essential":true,"values":[1]}}}', /values must be strings/],
      ['{"id_token":{"sub":{"value":42}}}', /value must be a string/],
      ['{"id_token":{"email":{"value":"a","values":["b"]}}}', /value or values, not both/],
      [claimsParam({ id_token: many }), /more than 100 claims/],
      [claimsParam({ id_token: { email: { values: Array(21).fill('x') } } }), /at most 20 values/],
      [claimsParam({ id_token: { email: null }, padding: 'x'.repeat(5000) }), /longer than 4096/],
      ['['.repeat(4000), /not valid JSON/],
    ];
    for (const [claims, description] of bad) {
      const got = await authorizeError({ claims });
      expect(got.error, claims.slice(0, 60)).toBe('invalid_request');
      expect(got.description, claims.slice(0, 60)).toMatch(description);
    }
  });

  it('attack: a huge claims parameter in a POST body is invalid_request (under the body limit) or 413', async () => {
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 's' });
    const post = (claims: string) => {
      const form = new URLSearchParams(new URL(url).searchParams);
      form.set('claims', claims);
      return fetch(`${server.url}/oauth/v2/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
        redirect: 'manual',
      });
    };
    // 100 kB: read, parsed no further than its length, refused at the redirect URI
    const big = await post(claimsParam({ id_token: { email: { values: Array(20_000).fill('xx') } } }));
    expect(big.status).toBe(303);
    const q = new URL(big.headers.get('location')!).searchParams;
    expect(q.get('error')).toBe('invalid_request');
    expect(q.get('error_description')).toMatch(/longer than 4096/);
    // 2 MB: over the body limit of every endpoint
    expect((await post('x'.repeat(2_000_000))).status).toBe(413);
  });

  it('essential acr mfa demands a second factor (no skip); the ID token then says mfa', async () => {
    const someone = await addUser(server);
    const browser = new Browser(server.url);
    const claims = claimsParam({ id_token: { acr: { essential: true, values: [MFA] } } });
    // a password-only session cannot answer it silently
    await signIn({}, someone, browser);
    const { url: silent } = await pkceAuthUrl(config, { scope: 'openid', prompt: 'none', claims });
    const refused = await browser.go(silent);
    expect(new URL(refused.url).searchParams.get('error')).toBe('login_required');
    // interactively: after the password, the set-up of a second factor, without skipping
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 's', claims });
    const fresh = new Browser(server.url);
    let page = await fresh.go(url);
    page = await fresh.submit(page, '/ui/login/login', { loginName: someone.username });
    page = await fresh.submit(page, '/ui/login/password', { password: someone.password });
    expect(page.url).toContain('/ui/login/mfa-setup');
    expect(page.html).not.toContain('/ui/login/mfa-setup/skip');
    const link = /href="(\/ui\/login\/setup-totp\?authRequest=[^"]+)"/.exec(page.html)![1];
    const setup = await fresh.go(link.replace(/&amp;/g, '&'));
    const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(setup.html)![1];
    const done = await fresh.submit(setup, '/ui/login/setup-totp', { code: await totpCode(secret) });
    const tokens = await client.authorizationCodeGrant(config, new URL(done.url), {
      pkceCodeVerifier: verifier,
      expectedState: 's',
    });
    expect(tokens.claims()).toMatchObject({ sub: someone.id, acr: MFA });
    expect(tokens.claims()!.amr).toContain('mfa');
    // essential 1fa from the same two-factor session: the acr asserted is one of the values asked for
    const { url: oneUrl, verifier: oneVerifier } = await pkceAuthUrl(config, {
      scope: 'openid',
      state: 's',
      prompt: 'none',
      claims: claimsParam({ id_token: { acr: { essential: true, value: ONE_FA } } }),
    });
    const one = await fresh.go(oneUrl);
    const oneTokens = await client.authorizationCodeGrant(config, new URL(one.url), {
      pkceCodeVerifier: oneVerifier,
      expectedState: 's',
    });
    expect(oneTokens.claims()).toMatchObject({ acr: ONE_FA });
    expect(oneTokens.claims()!.amr).toContain('mfa');
  });

  it('essential acr replaces acr_values; a voluntary acr asks for nothing', async () => {
    // acr_values asks for mfa, the essential acr accepts one factor: the password alone answers
    const either = await signIn({
      acr_values: MFA,
      claims: claimsParam({ id_token: { acr: { essential: true, values: [ONE_FA, MFA] } } }),
    });
    expect(either.tokens.claims()).toMatchObject({ acr: ONE_FA });
    const voluntary = await signIn({ claims: claimsParam({ id_token: { acr: { values: [MFA] } } }) });
    expect(voluntary.tokens.claims()).toMatchObject({ acr: ONE_FA });
  });

  it('attack: an essential acr we can never reach is access_denied (§5.5.1.1), not a weaker sign-in', async () => {
    const got = await authorizeError({
      claims: claimsParam({ id_token: { acr: { essential: true, values: ['urn:other:loa:4'] } } }),
    });
    expect(got.error).toBe('access_denied');
    expect(got.description).toMatch(/essential acr/);
  });

  it('attack: a sub value of another user fails the request, silently or after a sign-in (§5.5.1)', async () => {
    const victim = await addUser(server);
    const { browser } = await signIn({});
    const forVictim = claimsParam({ id_token: { sub: { value: victim.id } } });
    // the attacker's session does not answer for the victim
    const { url: silent } = await pkceAuthUrl(config, { scope: 'openid', prompt: 'none', claims: forVictim });
    expect(new URL((await browser.go(silent)).url).searchParams.get('error')).toBe('login_required');
    // nor does a fresh sign-in as someone else
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 's', claims: forVictim });
    const landed = new URL(await new Browser(server.url).login(url, user.username, user.password));
    expect(landed.searchParams.get('code')).toBeNull();
    expect(landed.searchParams.get('error')).toBe('access_denied');
    // at userinfo the same
    const viaUserinfo = claimsParam({ userinfo: { sub: { value: victim.id } } });
    const { url: url2 } = await pkceAuthUrl(config, { scope: 'openid', prompt: 'none', claims: viaUserinfo });
    expect(new URL((await browser.go(url2)).url).searchParams.get('error')).toBe('login_required');
    // the signed-in user's own sub answers
    const own = await signIn({ claims: claimsParam({ id_token: { sub: { value: user.id } } }) });
    expect(own.tokens.claims()!.sub).toBe(user.id);
    // two different sub values, or one that contradicts the id_token_hint, are malformed
    const twice = await authorizeError({
      claims: claimsParam({ id_token: { sub: { value: user.id } }, userinfo: { sub: { value: victim.id } } }),
    });
    expect(twice.error).toBe('invalid_request');
    const hinted = await authorizeError({ id_token_hint: own.tokens.id_token!, claims: forVictim });
    expect(hinted).toMatchObject({ error: 'invalid_request', description: expect.stringMatching(/id_token_hint/) });
  });

  it('attack: refresh and code exchange do not widen the claims of the grant', async () => {
    const { url, verifier } = await pkceAuthUrl(config, {
      scope: 'openid offline_access',
      state: 's',
      claims: claimsParam({ id_token: { email: null } }),
    });
    const landed = await new Browser(server.url).login(url, user.username, user.password);
    const wider = claimsParam({ id_token: { given_name: null, family_name: null }, userinfo: { email: null } });
    // a claims parameter sent with the code is not a request for more
    const tokens = await client.authorizationCodeGrant(
      config,
      new URL(landed),
      { pkceCodeVerifier: verifier, expectedState: 's' },
      { claims: wider },
    );
    expect(tokens.claims()).toMatchObject({ email: email(user) });
    expect(tokens.claims()).not.toHaveProperty('given_name');
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, { claims: wider });
    // the grant keeps what was asked at authorize: the email, and nothing more
    expect(refreshed.claims()).toMatchObject({ sub: user.id, email: email(user) });
    expect(refreshed.claims()).not.toHaveProperty('given_name');
    expect(refreshed.claims()).not.toHaveProperty('family_name');
    expect(await userinfo(refreshed.access_token)).toEqual({ sub: user.id });
  });

  it('the implicit flow (id_token token): the ID token and userinfo answer the parameter', async () => {
    const { browser } = await signIn({});
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      response_type: 'id_token token',
      nonce,
      claims: claimsParam({ id_token: { email: null }, userinfo: { given_name: null } }),
    });
    const res = await browser.request(url.toString());
    const fragment = new URLSearchParams(new URL(res.headers.get('location')!).hash.slice(1));
    const idToken = fragment.get('id_token')!;
    const payload = JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString());
    expect(payload).toMatchObject({ sub: user.id, nonce, email: email(user) });
    expect(payload).not.toHaveProperty('given_name');
    expect(await userinfo(fragment.get('access_token')!)).toEqual({ sub: user.id, given_name: 'Ada' });
  });

  it('claims inside a signed request object (a JSON object there) and pushed through PAR', async () => {
    const keyed = await addOidcApp(server, await addProject(server), { authMethodType: 'PRIVATE_KEY_JWT' });
    const { keyFile } = await createApplicationKey(systemCtx(server), { applicationId: keyed.applicationId });
    const key = await importPKCS8(keyFile.key, 'RS256');
    const jar = await rp(server, keyed.clientId, {}, client.PrivateKeyJwt({ key, kid: keyFile.keyId }));
    const run = async (build: (p: Record<string, string>) => Promise<URL>) => {
      const verifier = client.randomPKCECodeVerifier();
      const url = await build({
        redirect_uri: REDIRECT,
        scope: 'openid',
        state: 's',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        claims: claimsParam({ id_token: { email: null }, userinfo: { family_name: null } }),
      });
      const landed = await new Browser(server.url).login(url.toString(), user.username, user.password);
      const tokens = await client.authorizationCodeGrant(jar, new URL(landed), {
        pkceCodeVerifier: verifier,
        expectedState: 's',
      });
      expect(tokens.claims()).toMatchObject({ sub: user.id, email: email(user) });
      expect(
        await (client.fetchUserInfo(jar, tokens.access_token, user.id) as Promise<Record<string, unknown>>),
      ).toEqual({ sub: user.id, family_name: 'Lovelace' });
    };
    // openid-client puts the claims parameter into the signed object as a JSON object, not as text
    await run((p) => client.buildAuthorizationUrlWithJAR(jar, p, { key, kid: keyFile.keyId }));
    await run((p) => client.buildAuthorizationUrlWithPAR(jar, p));
    await run(async (p) =>
      client.buildAuthorizationUrlWithPAR(
        jar,
        await client.buildAuthorizationUrlWithJAR(jar, p, { key, kid: keyFile.keyId }).then((u) => u.searchParams),
      ),
    );
  });

  it('attack: a malformed claims parameter pushed to PAR is a JSON invalid_request there', async () => {
    const { status, body } = await postFormJson(
      server,
      '/oauth/v2/par',
      {
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
        claims: '{"id_token":{"email":"yes"}}',
      },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/claims/) });
  });
});
