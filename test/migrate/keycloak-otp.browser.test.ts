import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as client from 'openid-client';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { rows } from '../helpers/rows';
import { startTestServer, type TestServer } from '../helpers/server';
import { totpCode } from '../helpers/totp';
import { FIXTURES, portcullis, tempDir, writeExport } from './run-cli';

/**
 * A Keycloak user with an OTP credential, migrated with `portcullis migrate keycloak`, signs in to an
 * application in real Chromium with the Keycloak password and a code of the same authenticator app.
 */
describe('Keycloak migration: an OTP credential works in the hosted login', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('password, then the TOTP code of the Keycloak authenticator: the ID token says pwd, otp, mfa', async () => {
    const raw = 'kc-browser-otp-secret-42'; // Keycloak keeps the key as text
    const exported = JSON.parse(readFileSync(join(FIXTURES, 'kc11-users-0.json'), 'utf8'));
    const kcUser = exported.users.find((u: { username: string }) => u.username === 'user');
    kcUser.credentials.push({
      type: 'otp',
      userLabel: 'phone',
      createdDate: 1700000000000,
      secretData: JSON.stringify({ value: raw }),
      credentialData: JSON.stringify({ subType: 'totp', digits: 6, counter: 0, period: 30, algorithm: 'HmacSHA1' }),
    });
    const dir = tempDir();
    const file = writeExport(dir, 'otp-users-0.json', exported);
    const tokenFile = writeExport(dir, 'admin.pat', `${server.pat}\n`);
    const run = await portcullis([
      'migrate',
      'keycloak',
      '--org=kc-browser-otp',
      `--realm=${file}`,
      `--url=${server.url}`,
      `--token-file=${tokenFile}`,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [user] = await rows(
      server,
      `select u.id, u.username || '@' || o.primary_domain as login_name from users u join orgs o on o.id = u.org_id
       where u.username = 'user' and u.org_id = 'kc-browser-otp'`,
    );

    const config = await addRelyingParty(server);
    const ctx = await browser.newContext({ javaScriptEnabled: false });
    const page = await ctx.newPage();
    let landed!: (url: string) => void;
    const callback = new Promise<string>((r) => (landed = r));
    await ctx.route('https://rp.example.com/**', async (route) => {
      landed(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>RP</p>' });
    });
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid profile', state: 'st' });
    await page.goto(url);
    await page.getByLabel(/Login name|Loginname/).fill(user.login_name as string);
    await page.getByRole('button', { name: /Next|Weiter/ }).click();
    await page.getByLabel(/^(Password|Passwort)$/).fill('user');
    await page.getByRole('button', { name: /Sign in|Anmelden/ }).click();
    // the imported authenticator is the user's only second factor: the login goes straight to it
    await page.waitForURL(/\/ui\/login\/totp\?/);
    await page.getByLabel(/^Code$/).fill(await totpCode(new TextEncoder().encode(raw)));
    await page.getByRole('button', { name: /^(Verify|Bestätigen|Prüfen)$/ }).click();
    const tokens = await client.authorizationCodeGrant(config, new URL(await callback), {
      pkceCodeVerifier: verifier,
      expectedState: 'st',
    });
    expect(tokens.claims()!.sub).toBe(user.id);
    expect(tokens.claims()!.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    await ctx.close();
  }, 90_000);
});
