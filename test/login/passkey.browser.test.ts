import * as client from 'openid-client';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MultiFactorType,
  PasswordlessType,
  SecondFactorType,
} from '../../gen/portcullis/settings/v2/login_settings_pb';
import { SettingsService } from '../../gen/portcullis/settings/v2/settings_service_pb';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { rows } from '../helpers/rows';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/**
 * Real Chromium with a CDP virtual authenticator (a platform authenticator with resident keys and
 * user verification): the hosted login sets up a passkey, then signs in with it alone.
 */
describe('passkeys in the hosted login, in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let config: client.Configuration;
  let user: Awaited<ReturnType<typeof addUser>>;
  let origin: string;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
    user = await addUser(server);
    // WebAuthn needs a domain, not an IP address: the browser uses the instance's domain (localhost)
    const [{ domain }] = await rows(server, 'select domain from instances');
    origin = `http://${domain}:${server.port}`;
    // every user needs a second factor, and a passkey that verifies the user is one
    await server.client(SettingsService).setDefaultLoginSettings({
      settings: {
        allowUsernamePassword: true,
        passwordlessType: PasswordlessType.ALLOWED,
        forceMfa: true,
        secondFactors: [SecondFactorType.TOTP, SecondFactorType.U2F],
        multiFactors: [MultiFactorType.U2F_WITH_VERIFICATION],
      },
    });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('sets up a passkey after the password, then signs in with it alone: amr user and mfa, no pwd', async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    let resolveCallback!: (url: string) => void;
    await ctx.route('https://rp.example.com/**', async (route) => {
      resolveCallback(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>RP</p>' });
    });
    const login = async () => {
      const callback = new Promise<string>((r) => (resolveCallback = r));
      const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
      // With autofill the virtual authenticator can sign in before the navigation counts as done: the
      // navigation to the relying party then interrupts this one, which is the sign-in we wait for.
      await page.goto(url.replace(server.url, origin), { waitUntil: 'commit' }).catch((err: Error) => {
        if (!/interrupted by another navigation to "https:\/\/rp\.example\.com\//.test(err.message)) throw err;
      });
      return { callback, verifier };
    };
    const tokensOf = async (landed: string, verifier: string) =>
      client.authorizationCodeGrant(config, new URL(landed), { pkceCodeVerifier: verifier, expectedState: 'st' });

    // 1. password, then the policy's set-up chooser offers the passkey; set one up
    const first = await login();
    await page.getByLabel('Login name').fill(user.username);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/ui\/login\/mfa-setup/);
    await page.getByRole('link', { name: 'Passkey or security key' }).click();
    await page.waitForURL(/\/ui\/login\/setup-passkey/);
    await page.getByLabel('Name of the passkey (optional)').fill('virtual');
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    const firstTokens = await tokensOf(await first.callback, first.verifier);
    expect(firstTokens.claims()!.amr).toEqual(expect.arrayContaining(['pwd', 'hwk', 'mfa']));
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0].isResidentCredential).toBe(true);

    // 2. a fresh login (no cookies): the passkey button, no login name, no password. The login name
    // field's autofill would answer first (the virtual authenticator consents at once): its options
    // request, the first of the page, fails here.
    await ctx.clearCookies();
    let autofillRequests = 0;
    await ctx.route('**/ui/login/passkey/options', (route) =>
      autofillRequests++ === 0 ? route.abort() : route.continue(),
    );
    const second = await login();
    await page.waitForURL(/\/ui\/login\/login/);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const tokens = await tokensOf(await second.callback, second.verifier);
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(user.id);
    expect(claims.amr).toEqual(expect.arrayContaining(['user', 'mfa']));
    expect(claims.amr).not.toContain('pwd');
    expect(claims.acr).toBe('urn:portcullis:acr:mfa');
    expect(autofillRequests).toBe(2); // the aborted autofill, then the button's
    await ctx.unroute('**/ui/login/passkey/options');

    // 3. and the autofill (conditional UI) of the login name field signs in without a click
    await ctx.clearCookies();
    const third = await login();
    const autofilled = await tokensOf(await third.callback, third.verifier);
    expect(autofilled.claims()!.sub).toBe(user.id);
    expect(autofilled.claims()!.amr).not.toContain('pwd');
    await ctx.close();
  });
});
