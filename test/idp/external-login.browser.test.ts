import * as client from 'openid-client';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listIdpLinks } from '../../src/domain/idp/links';
import { addOidcApp, addProject } from '../helpers/apps';
import { systemCtx } from '../helpers/context';
import { addOidcUpstream, addProvider } from '../helpers/idp';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { unique } from '../helpers/names';
import { startTestServer, type TestServer } from '../helpers/server';
import { startUpstreamOidc, type UpstreamOidc } from '../helpers/upstream-oidc';
import { addUser } from '../helpers/users';

/**
 * Real Chromium signs in to Portcullis through two real upstreams: node-oidc-provider and a second
 * Portcullis server. The first sign-in creates the account (JIT), the second finds it, and the
 * second provider is linked to the same account.
 */
describe('sign-in through external identity providers in a browser', () => {
  let server: TestServer;
  let upstreamPortcullis: TestServer;
  let upstream: UpstreamOidc;
  let browser: Browser;
  let config: client.Configuration;
  let oidcIdp: string;
  let portcullisIdp: string;
  const email = `${unique('chris')}@example.com`;
  const sub = unique('chris');
  let remote: { username: string; password: string };

  beforeAll(async () => {
    [server, upstreamPortcullis] = await Promise.all([startTestServer(), startTestServer()]);
    const callback = `${server.url}/idps/callback`;
    upstream = await startUpstreamOidc({ redirectUris: [callback] });
    upstream.addAccount({ sub, email, email_verified: true, given_name: 'Chris', family_name: 'Upstream' });
    config = await addRelyingParty(server);
    oidcIdp = (await addOidcUpstream(server, upstream, { name: 'Upstream OIDC' })).id;
    // the second Portcullis knows the same person, with the same verified address
    remote = await addUser(upstreamPortcullis, { email });
    const app = await addOidcApp(upstreamPortcullis, await addProject(upstreamPortcullis), {
      redirectUris: [callback],
      developmentMode: true,
    });
    portcullisIdp = (
      await addProvider(server, {
        name: 'Partner Portcullis',
        spec: {
          kind: 'generic_oidc',
          issuer: upstreamPortcullis.url,
          clientId: app.clientId,
          clientAuth: 'client_secret_basic',
          scopes: ['openid', 'profile', 'email'],
          disablePkce: false,
          useUserinfo: true,
          emailVerifiedByProvider: false,
          mapping: {},
        },
        secrets: { clientSecret: app.clientSecret },
        // the instance trusts its partner's verified emails: the JIT account has no password to prove
        options: { trustVerifiedEmail: true },
      })
    ).id;
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await upstream?.stop();
    await Promise.all([server?.stop(), upstreamPortcullis?.stop()]);
  });

  /** A fresh browser window on the relying party's authorization URL; resolves with the callback URL. */
  async function open(): Promise<{ page: Page; ctx: BrowserContext; callback: Promise<string>; verifier: string }> {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    let resolveCallback!: (url: string) => void;
    const callback = new Promise<string>((r) => (resolveCallback = r));
    await ctx.route('https://rp.example.com/**', async (route) => {
      resolveCallback(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>RP</p>' });
    });
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid profile email', state: 'st' });
    await page.goto(url);
    return { page, ctx, callback, verifier };
  }

  async function subjectOf(callback: string, verifier: string): Promise<string> {
    const tokens = await client.authorizationCodeGrant(config, new URL(callback), {
      pkceCodeVerifier: verifier,
      expectedState: 'st',
    });
    const claims = tokens.claims()!;
    expect(claims.amr).toContain('fed');
    return claims.sub;
  }

  async function throughOidcUpstream(): Promise<string> {
    const { page, ctx, callback, verifier } = await open();
    await page.getByRole('button', { name: 'Sign in with Upstream OIDC' }).click();
    await page.waitForURL(`${upstream.url}/**`);
    await page.locator('#login').fill(sub);
    await page.locator('#submit').click();
    // node-oidc-provider asks for consent the first time
    const consent = page.locator('#confirm');
    const landed = await Promise.race([
      callback.then(() => 'done' as const),
      consent.waitFor().then(() => 'consent' as const),
    ]);
    if (landed === 'consent') await consent.click();
    const subject = await subjectOf(await callback, verifier);
    await ctx.close();
    return subject;
  }

  let account = '';

  it('the first sign-in through node-oidc-provider creates the account, the next one finds it', async () => {
    account = await throughOidcUpstream();
    expect(await throughOidcUpstream()).toBe(account);
  });

  it('signing in through the second Portcullis links it to the same account after a confirmation', async () => {
    expect(account).not.toBe('');
    const { page, ctx, callback, verifier } = await open();
    await page.getByRole('button', { name: 'Sign in with Partner Portcullis' }).click();
    await page.waitForURL(`${upstreamPortcullis.url}/ui/login/**`);
    await page.getByLabel(/Login name/).fill(remote.username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel(/^Password$/).fill(remote.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/ui/login/idp?**`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Link your account');
    await page.getByRole('button', { name: 'Link and continue' }).click();
    expect(await subjectOf(await callback, verifier)).toBe(account);
    await ctx.close();
    const links = await listIdpLinks(systemCtx(server), { userId: account });
    expect(links.items.map((l) => l.idpId).sort()).toEqual([oidcIdp, portcullisIdp].sort());
  });
});
