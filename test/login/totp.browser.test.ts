import * as client from 'openid-client';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { totpCode } from '../helpers/totp';
import { addUser } from '../helpers/users';

/**
 * Real Chromium, without JavaScript: a password and then a second factor on its own page. A user with a
 * second factor is sent there by the login policy; for the others the browser is held before the
 * authorization callback after the password and opens the page (set-up, recovery) of the same request.
 */
describe('hosted login: authenticator app and recovery codes in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Signs in with the password and stops at the callback; returns the page, the auth request id and the rest. */
  async function passwordThenHold(user: { username: string; password: string }) {
    const ctx = await browser.newContext({ javaScriptEnabled: false });
    const page = await ctx.newPage();
    let resolveCallback!: (url: string) => void;
    const callback = new Promise<string>((r) => (resolveCallback = r));
    await ctx.route('https://rp.example.com/**', async (route) => {
      resolveCallback(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>RP</p>' });
    });
    // The password form answers with a redirect to the callback: hold it there and keep the auth request.
    let held!: (id: string) => void;
    const heldAt = new Promise<string>((r) => (held = r));
    await ctx.route('**/ui/login/password', async (route) => {
      const res = await route.fetch({ maxRedirects: 0 });
      const location = res.headers().location ?? '';
      if (!location.startsWith('/oauth/v2/authorize/callback')) return route.fulfill({ response: res });
      held(new URL(location, server.url).searchParams.get('id')!);
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>held</p>' });
    });
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid profile', state: 'st' });
    await page.goto(url);
    await page.getByLabel(/Login name|Loginname/).fill(user.username);
    await page.getByRole('button', { name: /Next|Weiter/ }).click();
    await page.getByLabel(/^(Password|Passwort)$/).fill(user.password);
    await page.getByRole('button', { name: /Sign in|Anmelden/ }).click();
    // A user with a second factor is sent on by the login policy (mfa → the factor's page); one without
    // would go straight to the callback, where the browser is held.
    const onFactorPage = page
      .waitForURL((u) => /^\/ui\/login\/(totp|otp-|recovery|mfa)/.test(u.pathname), { timeout: 15_000 })
      .then(() => new URL(page.url()).searchParams.get('authRequest')!);
    const authRequest = await Promise.race([heldAt, onFactorPage]);
    await ctx.unroute('**/ui/login/password');
    return { ctx, page, authRequest, callback, verifier };
  }

  async function tokensOf(landed: string, verifier: string) {
    return client.authorizationCodeGrant(config, new URL(landed), { pkceCodeVerifier: verifier, expectedState: 'st' });
  }

  const submitCode = async (page: Page, label: RegExp, code: string) => {
    await page.getByLabel(label).fill(code);
    await page.getByRole('button', { name: /^(Verify|Bestätigen|Prüfen)$/ }).click();
  };

  it('password, then a code of the authenticator app: the ID token says pwd, otp, mfa', async () => {
    const user = await addUser(server);
    const users = server.client(UserService);
    const reg = await users.registerTOTP({ userId: user.id });
    await users.verifyTOTPRegistration({ userId: user.id, code: await totpCode(reg.secret) });

    const { ctx, page, callback, verifier } = await passwordThenHold(user);
    // the login policy sends a user with an authenticator app to it after the password
    await page.waitForURL(/\/ui\/login\/totp\?/);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('authenticator app');
    await submitCode(page, /^Code$/, '000000');
    await expect(page.getByRole('alert').textContent()).resolves.toContain('wrong');
    await submitCode(page, /^Code$/, await totpCode(reg.secret, 1));
    const tokens = await tokensOf(await callback, verifier);
    expect(tokens.claims()!.sub).toBe(user.id);
    expect(tokens.claims()!.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    await ctx.close();
  });

  it('sets up an authenticator app: QR code and key on the page, then a computed code', async () => {
    const user = await addUser(server);
    const { ctx, page, authRequest, callback, verifier } = await passwordThenHold(user);
    const csp: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
    });
    await page.goto(`${server.url}/ui/login/setup-totp?authRequest=${authRequest}&ui_locales=en`);
    const img = page.locator('img');
    await expect(img.getAttribute('src')).resolves.toMatch(/^data:image\/svg\+xml;base64,/);
    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await submitCode(page, /^Code$/, await totpCode(secret));
    const tokens = await tokensOf(await callback, verifier);
    expect(tokens.claims()!.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    expect(csp).toEqual([]);
    await ctx.close();

    // the app is ready now: its next code signs in
    const again = await passwordThenHold(user);
    await again.page.waitForURL(/\/ui\/login\/totp\?/);
    await submitCode(again.page, /^Code$/, await totpCode(secret, 1));
    expect((await tokensOf(await again.callback, again.verifier)).claims()!.amr).toContain('otp');
    await again.ctx.close();
  });

  it('a recovery code works once', async () => {
    const user = await addUser(server);
    const { recoveryCodes } = await server.client(UserService).generateRecoveryCodes({ userId: user.id });
    const first = await passwordThenHold(user);
    await first.page.goto(`${server.url}/ui/login/recovery?authRequest=${first.authRequest}`);
    await submitCode(first.page, /^Recovery code$/, recoveryCodes[0]);
    const tokens = await tokensOf(await first.callback, first.verifier);
    expect(tokens.claims()!.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    await first.ctx.close();

    const second = await passwordThenHold(user);
    await second.page.goto(`${server.url}/ui/login/recovery?authRequest=${second.authRequest}`);
    await submitCode(second.page, /^Recovery code$/, recoveryCodes[0]);
    await expect(second.page.getByRole('alert').textContent()).resolves.toContain('wrong');
    expect(second.page.url()).toContain('/ui/login/recovery');
    await second.ctx.close();
  });
});
