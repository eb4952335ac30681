import * as client from 'openid-client';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MultiFactorType,
  PasswordlessType,
  SecondFactorType,
} from '../../gen/portcullis/settings/v2/login_settings_pb';
import { SettingsService } from '../../gen/portcullis/settings/v2/settings_service_pb';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

const FORCE_MFA = {
  allowUsernamePassword: true,
  passwordlessType: PasswordlessType.ALLOWED,
  forceMfa: true,
  forceMfaLocalOnly: false,
  secondFactors: [SecondFactorType.TOTP, SecondFactorType.U2F, SecondFactorType.OTP_EMAIL],
  multiFactors: [MultiFactorType.U2F_WITH_VERIFICATION],
  passwordCheckLifetimeSeconds: 0,
  secondFactorCheckLifetimeSeconds: 0,
  multiFactorCheckLifetimeSeconds: 0,
  mfaInitSkipLifetimeSeconds: 0,
};

/** Real Chromium: force MFA through SetDefaultLoginSettings and see the set-up chooser after the password. */
describe('login policy in a browser', () => {
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

  async function rpPage() {
    const ctx = await browser.newContext({ javaScriptEnabled: false });
    const page = await ctx.newPage();
    let resolveCallback!: (url: string) => void;
    const callback = new Promise<string>((r) => (resolveCallback = r));
    await ctx.route('https://rp.example.com/**', async (route) => {
      resolveCallback(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>RP</p>' });
    });
    return { page, callback, ctx };
  }
  const signIn = async (page: Page, loginName: string, password: string) => {
    await page.getByLabel(/Login name|Loginname/).fill(loginName);
    await page.getByRole('button', { name: /Next|Weiter/ }).click();
    await page.getByLabel(/^(Password|Passwort)$/).fill(password);
    await page.getByRole('button', { name: /Sign in|Anmelden/ }).click();
  };

  it('force MFA without skipping: after the password the set-up chooser, in English and German', async () => {
    await server.client(SettingsService).setDefaultLoginSettings({ settings: FORCE_MFA });
    const user = await addUser(server);
    for (const [locale, title, totp] of [
      ['en', 'Set up a second factor', 'Authenticator app'],
      ['de', 'Zweiten Faktor einrichten', 'Authenticator-App'],
    ]) {
      const { page, ctx } = await rpPage();
      await page.goto((await pkceAuthUrl(config, { scope: 'openid', state: 'st', ui_locales: locale })).url);
      await signIn(page, user.username, user.password);
      await page.waitForURL(/\/ui\/login\/mfa-setup/);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(title);
      await expect(page.getByRole('link', { name: totp }).getAttribute('href')).resolves.toMatch(
        /^\/ui\/login\/setup-totp\?authRequest=/,
      );
      await expect(page.locator('main ul a').count()).resolves.toBe(3);
      await expect(page.getByRole('button', { name: /Skip for now|Später einrichten/ }).count()).resolves.toBe(0);
      await ctx.close();
    }
  });

  it('when the policy allows skipping, "Skip for now" finishes the sign-in', async () => {
    await server.client(SettingsService).setDefaultLoginSettings({
      settings: { ...FORCE_MFA, mfaInitSkipLifetimeSeconds: 7 * 24 * 3600 },
    });
    const user = await addUser(server);
    const { page, callback, ctx } = await rpPage();
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
    await page.goto(url);
    await signIn(page, user.username, user.password);
    await page.waitForURL(/\/ui\/login\/mfa-setup/);
    await page.getByRole('button', { name: 'Skip for now' }).click();
    const tokens = await client.authorizationCodeGrant(config, new URL(await callback), {
      pkceCodeVerifier: verifier,
      expectedState: 'st',
    });
    expect(tokens.claims()).toMatchObject({ sub: user.id, acr: 'urn:portcullis:acr:1fa' });
    await ctx.close();
  });
});
