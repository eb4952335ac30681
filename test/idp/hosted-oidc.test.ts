import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listIdpLinks } from '../../src/domain/idp/links';
import { findUserById } from '../../src/domain/session/users';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { addOidcUpstream } from '../helpers/idp';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { unique } from '../helpers/names';
import { startTestServer, type TestServer } from '../helpers/server';
import { signInAt, startUpstreamOidc, type UpstreamOidc } from '../helpers/upstream-oidc';
import { addUser } from '../helpers/users';

/**
 * The hosted login through a real upstream OpenID Provider (node-oidc-provider): just-in-time users,
 * the same user again, auto-linking by verified email, and the attacks on the callback.
 */
describe('hosted login through an upstream OpenID Provider', () => {
  let server: TestServer;
  let upstream: UpstreamOidc;
  let config: client.Configuration;
  let idpId: string;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startUpstreamOidc({ redirectUris: [`${server.url}/idps/callback`] });
    config = await addRelyingParty(server);
    idpId = (await addOidcUpstream(server, upstream)).id;
  });
  afterAll(async () => {
    await upstream?.stop();
    await server?.stop();
  });

  /** The sign-in up to the upstream's answer: the callback parameters, and the browser that started it. */
  async function throughUpstream(sub: string, browser = new Browser(server.url), idp = idpId) {
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid profile email', state: 'st' });
    const page = await browser.go(url);
    const pressed = await browser.submit(page, '/ui/login/idp/start', { idp });
    expect(pressed.url.startsWith(upstream.url)).toBe(true);
    const params = await signInAt(pressed.url, sub);
    return { browser, params, verifier };
  }

  async function finish(browser: Browser, params: URLSearchParams) {
    return browser.go(`/idps/callback?${params}`);
  }

  async function tokensAt(landed: string, verifier: string) {
    return client.authorizationCodeGrant(config, new URL(landed), { pkceCodeVerifier: verifier, expectedState: 'st' });
  }

  it('a new upstream user gets an account at once (JIT), and the same account the next time', async () => {
    const sub = unique('jit');
    upstream.addAccount({
      sub,
      email: `${sub}@upstream.test`,
      email_verified: true,
      given_name: 'Jo',
      family_name: 'Jit',
    });
    const first = await throughUpstream(sub);
    const landed = await finish(first.browser, first.params);
    expect(landed.url).toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
    const tokens = await tokensAt(landed.url, first.verifier);
    const claims = tokens.claims()!;
    expect(claims.amr).toContain('fed');
    expect(claims.amr).not.toContain('pwd');
    const links = await listIdpLinks(systemCtx(server), { userId: claims.sub });
    expect(links.items.map((l) => [l.idpId, l.externalUserId])).toEqual([[idpId, sub]]);

    const again = await throughUpstream(sub);
    const second = await finish(again.browser, again.params);
    const claims2 = (await tokensAt(second.url, again.verifier)).claims()!;
    expect(claims2.sub).toBe(claims.sub);
  });

  it('a callback carried to another browser (login CSRF) signs nobody in', async () => {
    const sub = unique('csrf');
    upstream.addAccount({
      sub,
      email: `${sub}@upstream.test`,
      email_verified: true,
      given_name: 'A',
      family_name: 'B',
    });
    const attacker = await throughUpstream(sub);
    const victim = new Browser(server.url);
    const page = await finish(victim, attacker.params);
    expect(page.res.status).toBe(400);
    expect(page.url).toContain('/idps/callback');
    expect(page.html).toContain('started in another browser');
    // the attacker's own browser cannot use it afterwards either: the state works once
    const replay = await finish(attacker.browser, attacker.params);
    expect(replay.res.status).toBe(400);
  });

  it('an unknown state is refused before anything reaches the upstream', async () => {
    const page = await new Browser(server.url).go('/idps/callback?state=forged&code=abc');
    expect(page.res.status).toBe(400);
    expect(page.html).toContain('unknown, expired or already finished');
  });

  it('a verified upstream email proposes the existing account; linking needs its password', async () => {
    const email = `${unique('ada')}@example.com`;
    const local = await addUser(server, { email });
    const sub = unique('link');
    upstream.addAccount({ sub, email, email_verified: true, given_name: 'A', family_name: 'L' });
    const { browser, params, verifier } = await throughUpstream(sub);
    const page = await finish(browser, params);
    expect(page.url).toContain('/ui/login/idp?');
    expect(page.html).toContain('Link your account');
    expect(page.html).toContain('type="password"');
    expect((await listIdpLinks(systemCtx(server), { userId: local.id })).items).toHaveLength(0);
    // the upstream's word alone links nothing
    const refused = await browser.submit(page, '/ui/login/idp/link', {});
    expect(refused.res.status).toBe(400);
    expect((await listIdpLinks(systemCtx(server), { userId: local.id })).items).toHaveLength(0);
    const landed = await browser.submit(page, '/ui/login/idp/link', { password: local.password });
    const claims = (await tokensAt(landed.url, verifier)).claims()!;
    expect(claims.sub).toBe(local.id);
    expect((await listIdpLinks(systemCtx(server), { userId: local.id })).items).toHaveLength(1);
  });

  it('an UNVERIFIED upstream email matching an existing account never links to it', async () => {
    const email = `${unique('victim')}@example.com`;
    const local = await addUser(server, { email });
    const sub = unique('unverified');
    upstream.addAccount({ sub, email, email_verified: false, given_name: 'E', family_name: 'Ve' });
    const { browser, params, verifier } = await throughUpstream(sub);
    const page = await finish(browser, params);
    // no link proposal: a new account of its own (JIT), with the address unverified
    expect(page.html).not.toContain('Link your account');
    const claims = (await tokensAt(page.url, verifier)).claims()!;
    expect(claims.sub).not.toBe(local.id);
    expect((await findUserById(server.app.deps.database.db, claims.sub))?.emailVerified).toBe(false);
    expect((await listIdpLinks(systemCtx(server), { userId: local.id })).items).toHaveLength(0);
  });

  it('a provider that only links: the user signs in with the password, then the account is linked', async () => {
    const linkOnly = await addOidcUpstream(server, upstream, {
      name: 'Link only',
      options: { isCreationAllowed: false, isAutoCreation: false, autoLinking: 'NONE' },
    });
    const local = await addUser(server);
    const sub = unique('later');
    upstream.addAccount({
      sub,
      email: `${sub}@upstream.test`,
      email_verified: true,
      given_name: 'L',
      family_name: 'A',
    });
    const { browser, params, verifier } = await throughUpstream(sub, new Browser(server.url), linkOnly.id);
    let page = await finish(browser, params);
    expect(page.html).toContain('Sign in to link');
    page = await browser.submit(page, '/ui/login/idp/link-later', {});
    expect(page.url).toContain('/ui/login/login?');
    page = await browser.submit(page, '/ui/login/login', { loginName: local.username });
    page = await browser.submit(page, '/ui/login/password', { password: local.password });
    expect((await tokensAt(page.url, verifier)).claims()!.sub).toBe(local.id);
    const links = await listIdpLinks(systemCtx(server), { userId: local.id });
    expect(links.items.map((l) => [l.idpId, l.externalUserId])).toEqual([[linkOnly.id, sub]]);
    // from now on the upstream account signs in to it directly
    const again = await throughUpstream(sub, new Browser(server.url), linkOnly.id);
    const landed = await finish(again.browser, again.params);
    expect((await tokensAt(landed.url, again.verifier)).claims()!.sub).toBe(local.id);
  });

  it('the result page of an unknown request or intent is a 4xx page, never a sign-in', async () => {
    const page = await new Browser(server.url).go('/ui/login/idp?authRequest=nope&intent=nope');
    expect(page.res.status).toBeGreaterThanOrEqual(400);
    expect(page.res.status).toBeLessThan(500);
  });
});
