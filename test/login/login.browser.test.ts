import * as client from 'openid-client';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { addUser } from '../helpers/users';
import { mailedCodes } from '../helpers/mail';

/** Real Chromium against the hosted login: the pages work without JavaScript. */
describe('hosted login in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let config: client.Configuration;
  let user: Awaited<ReturnType<typeof addUser>>;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
    user = await addUser(server);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A page whose requests to the relying party are answered locally; resolves with the callback URL. */
  async function rpPage(context = browser.newContext({ javaScriptEnabled: false })) {
    const ctx = await context;
    const page = await ctx.newPage();
    let resolveCallback!: (url: string) => void;
    const callback = new Promise<string>((r) => (resolveCallback = r));
    await ctx.route('https://rp.example.com/**', async (route) => {
      resolveCallback(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>RP</p>' });
    });
    return { page, callback, ctx };
  }
  const authUrl = (extra: Record<string, string> = {}) =>
    pkceAuthUrl(config, { scope: 'openid profile', state: 'st', ...extra });
  const signIn = async (page: Page, loginName: string, password: string) => {
    await page.getByLabel(/Login name|Loginname/).fill(loginName);
    await page.getByRole('button', { name: /Next|Weiter/ }).click();
    await page.getByLabel(/^(Password|Passwort)$/).fill(password);
    await page.getByRole('button', { name: /Sign in|Anmelden/ }).click();
  };

  it('code + PKCE login with password, without JavaScript', async () => {
    const { page, callback, ctx } = await rpPage();
    const { url, verifier } = await authUrl();
    await page.goto(url);
    await expect(page.title()).resolves.toBe('Sign in');
    await signIn(page, user.username, user.password);
    const landed = await callback;
    const tokens = await client.authorizationCodeGrant(config, new URL(landed), {
      pkceCodeVerifier: verifier,
      expectedState: 'st',
    });
    expect(tokens.claims()!.sub).toBe(user.id);
    await ctx.close();
  });

  it('ui_locales=de shows the German page', async () => {
    const { page, ctx } = await rpPage();
    await page.goto((await authUrl({ ui_locales: 'de' })).url);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Anmelden');
    await expect(page.getByLabel('Loginname').isVisible()).resolves.toBe(true);
    await ctx.close();
  });

  it('select_account: two sessions in one browser, pick one', async () => {
    const other = await addUser(server);
    const ctx = await browser.newContext({ javaScriptEnabled: false });
    const first = await rpPage(Promise.resolve(ctx));
    await first.page.goto((await authUrl()).url);
    await signIn(first.page, user.username, user.password);
    await first.callback;
    const second = await first.ctx.newPage();
    await second.goto((await authUrl({ prompt: 'login' })).url);
    await signIn(second, other.username, other.password);
    const third = await first.ctx.newPage();
    const choose = await authUrl({ prompt: 'select_account' });
    let landed!: (u: string) => void;
    const done = new Promise<string>((r) => (landed = r));
    await first.ctx.unroute('https://rp.example.com/**');
    await first.ctx.route('https://rp.example.com/**', async (route) => {
      landed(route.request().url());
      await route.fulfill({ status: 200, body: 'RP' });
    });
    await third.goto(choose.url);
    await expect(third.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Choose an account');
    await third.getByRole('button', { name: new RegExp(other.username) }).click();
    const tokens = await client.authorizationCodeGrant(config, new URL(await done), {
      pkceCodeVerifier: choose.verifier,
      expectedState: 'st',
    });
    expect(tokens.claims()!.sub).toBe(other.id);
    await ctx.close();
  });

  it('prompt=create registers a new user, verifies the email with the emailed code and signs them in', async () => {
    const { page, callback, ctx } = await rpPage();
    const { url, verifier } = await authUrl({ prompt: 'create' });
    const email = `kj${Date.now()}@example.com`;
    await page.goto(url);
    await page.getByLabel('First name').fill('Katherine');
    await page.getByLabel('Last name').fill('Johnson');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('Orbit-Passw0rd!');
    await page.getByLabel('Repeat the password').fill('Orbit-Passw0rd!');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Verify your email address');
    const [code] = await mailedCodes(server, email);
    await page.getByLabel('Verification code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    const tokens = await client.authorizationCodeGrant(config, new URL(await callback), {
      pkceCodeVerifier: verifier,
      expectedState: 'st',
    });
    const info = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(info.given_name).toBe('Katherine');
    await ctx.close();
  });
});
