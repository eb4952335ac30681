import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportPKCS8, generateKeyPair, jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OAuthProviderConfig } from '../../../src/domain/idp/oauth/config';
import * as flow from '../../../src/domain/idp/oauth/flow';
import { fromTemplate } from '../../../src/domain/idp/oauth/templates';
import { newUpstreamCaches } from '../../../src/domain/idp/oauth/upstream-caches';
import { type FakeUpstream, routedFetch, startFakeUpstream } from '../../helpers/upstream-oidc';

// The fake upstreams run on loopback, which only a server in development mode may reach.
// What a server would remember of the upstreams (discovery documents, keys) between sign-ins.
let caches = newUpstreamCaches();
const authorizationUrl = (...[c, s, p, o]: Parameters<typeof flow.authorizationUrl>) =>
  flow.authorizationUrl(c, s, p, { development: true, caches, ...o });
const completeAuthorization = (...[c, s, p, o]: Parameters<typeof flow.completeAuthorization>) =>
  flow.completeAuthorization(c, s, p, { development: true, caches, ...o });

// A dishonest upstream hands out ID tokens that a real one never would; each must be refused.
let fake: FakeUpstream;
const CLIENT = 'portcullis-rp';
const start = {
  redirectUri: 'http://127.0.0.1:9/callback',
  state: 'state-1',
  nonce: 'nonce-1',
  codeVerifier: 'v'.repeat(43),
};
const callback = () => new URLSearchParams({ code: 'any-code', state: start.state });

beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(() => fake?.stop());
beforeEach(() => {
  fake.idToken = { claims: { aud: CLIENT, nonce: start.nonce } };
});

const config = (): OAuthProviderConfig => ({
  protocol: 'oidc',
  issuer: fake.issuer,
  clientId: CLIENT,
  clientAuth: 'client_secret_post',
  scopes: ['openid'],
  usePkce: true,
  useUserinfo: false,
  mapping: {},
});
const complete = (c = config()) =>
  completeAuthorization(c, { clientSecret: 'secret' }, { ...start, callbackParams: callback() });
const refusal = async (message: string | RegExp) => {
  const err = await complete().catch((e) => e);
  expect(err).toMatchObject({ kind: 'unauthenticated', key: 'Errors.IdP.OAuth.InvalidResponse' });
  expect(err.message).toMatch(message);
};

describe('ID token checks (fake upstream)', () => {
  it('an honest token passes, so the refusals below are about the one thing changed', async () => {
    const { user } = await complete();
    expect(user.id).toBe('fake-user');
    expect(fake.lastTokenRequest?.body.get('client_secret')).toBe('secret');
    expect(fake.lastTokenRequest?.body.get('code_verifier')).toBe(start.codeVerifier);
  });

  it('refuses a token for another audience', async () => {
    fake.idToken.claims = { aud: 'someone-else', nonce: start.nonce };
    await refusal('the upstream ID token was issued for another client (aud)');
  });

  it('refuses a token for several audiences whose azp is another client', async () => {
    fake.idToken.claims = { aud: [CLIENT, 'someone-else'], azp: 'someone-else', nonce: start.nonce };
    await refusal(/authorized party/);
  });

  it('refuses a token signed with a key that is not in the upstream JWKS', async () => {
    fake.idToken.signWithForeignKey = true;
    await refusal("the upstream ID token's signature does not verify with the upstream's keys");
  });

  it('refuses an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    fake.idToken.claims = { aud: CLIENT, nonce: start.nonce, iat: now - 7200, exp: now - 3600 };
    await refusal('the upstream ID token has expired');
  });

  it('refuses a token from another issuer', async () => {
    fake.idToken.claims = { aud: CLIENT, nonce: start.nonce, iss: 'https://evil.example' };
    await refusal("the upstream ID token's issuer does not match the upstream");
  });

  it('refuses a token without the nonce we sent', async () => {
    fake.idToken.claims = { aud: CLIENT };
    await refusal(/nonce/);
  });

  it('refuses a callback that repeats a parameter (the first state ours, a second code smuggled in)', async () => {
    const params = new URLSearchParams({ code: 'c1', state: start.state });
    params.append('code', 'c2');
    fake.lastTokenRequest = undefined;
    const err = await completeAuthorization(
      config(),
      { clientSecret: 's' },
      { ...start, callbackParams: params },
    ).catch((e) => e);
    expect(err).toMatchObject({ kind: 'unauthenticated' });
    expect(fake.lastTokenRequest).toBeUndefined();
  });

  it('refuses a callback without a code', async () => {
    const params = new URLSearchParams({ state: start.state });
    const err = await completeAuthorization(config(), {}, { ...start, callbackParams: params }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'unauthenticated', message: 'the upstream callback carries no code' });
  });

  it('refuses a token response without an ID token', async () => {
    fake.idToken.omit = true;
    await refusal(/id_token/);
  });
});

describe('an upstream that is down or slow', () => {
  it('a closed port → unavailable', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise<void>((r) => s.close(() => r()));
    const err = await authorizationUrl({ ...config(), issuer: `http://127.0.0.1:${port}` }, {}, start).catch((e) => e);
    expect(err).toMatchObject({ kind: 'unavailable', key: 'Errors.IdP.OAuth.Unavailable' });
    expect(err.message).toContain('could not be reached');
  });

  it('an upstream that never answers → unavailable after the timeout', async () => {
    const s = createServer(() => {});
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const issuer = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    const t0 = Date.now();
    const err = await authorizationUrl({ ...config(), issuer }, {}, start, { timeoutMs: 300 }).catch((e) => e);
    expect(err).toMatchObject({ kind: 'unavailable' });
    expect(err.message).toContain('did not answer in time');
    expect(Date.now() - t0).toBeLessThan(3000);
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  });

  it('discovery is cached: the sign-in URL still works while the upstream is down, the exchange does not', async () => {
    const flaky = await startFakeUpstream();
    const c = { ...config(), issuer: flaky.issuer };
    await authorizationUrl(c, {}, start);
    await flaky.stop();
    const { url } = await authorizationUrl(c, {}, start);
    expect(url.startsWith(`${flaky.url}/authorize?`)).toBe(true);
    const err = await completeAuthorization(c, { clientSecret: 's' }, { ...start, callbackParams: callback() }).catch(
      (e) => e,
    );
    expect(err).toMatchObject({ kind: 'unavailable' });
  });
});

describe('Microsoft Entra ID multi-tenant issuer', () => {
  let entra: FakeUpstream;
  const ENTRA = 'https://login.microsoftonline.com';
  const tid = '3f6e5c1a-0000-4000-8000-000000000001';
  beforeAll(async () => {
    // what Entra's /common/v2.0 discovery answers: an issuer with a {tenantid} placeholder
    entra = await startFakeUpstream({
      issuer: `${ENTRA}/{tenantid}/v2.0`,
      issuerPath: '/common/v2.0',
      publicOrigin: ENTRA,
    });
    caches = newUpstreamCaches();
  });
  afterAll(() => entra?.stop());

  const entraConfig = () => fromTemplate({ template: 'azure_ad', clientId: CLIENT, tenant: 'common' });
  const opts = () => ({ fetch: routedFetch({ [ENTRA]: entra.url }) });
  const signIn = () =>
    completeAuthorization(entraConfig(), { clientSecret: 's' }, { ...start, callbackParams: callback() }, opts());

  it("accepts a token whose iss is the placeholder filled with the token's own tid", async () => {
    entra.idToken = { claims: { aud: CLIENT, nonce: start.nonce, tid, iss: `${ENTRA}/${tid}/v2.0`, email: 'a@b.c' } };
    const { user } = await signIn();
    expect(user.id).toBe('fake-user');
    expect(user.emailVerified).toBe(false);
  });

  it('refuses a token whose iss names another tenant than its tid', async () => {
    const iss = `${ENTRA}/00000000-0000-4000-8000-00000000beef/v2.0`;
    entra.idToken = { claims: { aud: CLIENT, nonce: start.nonce, tid, iss } };
    const err = await signIn().catch((e) => e);
    expect(err.message).toBe("the upstream ID token's issuer does not match the upstream");
  });

  it('private_key_jwt: the assertion is addressed to the token endpoint, not the {tenantid} template', async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    const secrets = { privateKey: { pem: await exportPKCS8(pair.privateKey), keyId: 'k-entra' } };
    const config = { ...entraConfig(), clientAuth: 'private_key_jwt' as const };
    entra.idToken = { claims: { aud: CLIENT, nonce: start.nonce, tid, iss: `${ENTRA}/${tid}/v2.0` } };
    await completeAuthorization(config, secrets, { ...start, callbackParams: callback() }, opts());
    const assertion = entra.lastTokenRequest?.body.get('client_assertion') ?? '';
    const { payload, protectedHeader } = await jwtVerify(assertion, pair.publicKey, {
      audience: `${ENTRA}/common/oauth2/v2.0/token`,
    });
    expect(payload).toMatchObject({ iss: CLIENT, sub: CLIENT });
    expect(protectedHeader.kid).toBe('k-entra');
  });

  it('refuses a token that carries the literal placeholder', async () => {
    entra.idToken = { claims: { aud: CLIENT, nonce: start.nonce, iss: `${ENTRA}/{tenantid}/v2.0` } };
    const err = await signIn().catch((e) => e);
    expect(err).toMatchObject({ kind: 'unauthenticated' });
  });
});

describe('plain http only to loopback hosts', () => {
  it('a loopback issuer whose discovery points elsewhere over http is refused (browser and exchange)', async () => {
    const sneaky = await startFakeUpstream({ publicOrigin: 'http://idp.example' });
    const c = { ...config(), issuer: sneaky.issuer };
    const refused = { kind: 'failed_precondition', key: 'Errors.IdP.OAuth.InsecureEndpoint' };
    expect(await authorizationUrl(c, {}, start).catch((e) => e)).toMatchObject(refused);
    // the token endpoint is refused by the outbound rule before anything is sent
    const p = { ...start, callbackParams: callback() };
    expect(await completeAuthorization(c, { clientSecret: 's' }, p).catch((e) => e)).toMatchObject({
      kind: 'failed_precondition',
      key: 'Errors.Outbound.Refused',
      message: expect.stringContaining('must use https'),
    });
    await sneaky.stop();
  });
});
