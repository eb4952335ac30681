import * as client from 'openid-client';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { FIXTURE_REALMS, migrateRealms } from './run-cli';
import { REDIRECT } from '../helpers/apps';
import { addRelyingParty } from '../helpers/login-flow';

/**
 * Two imported Keycloak users sign in through the hosted login in Chromium: a realm's `admin` (a
 * username the bootstrap administrator has too) and an argon2id user of another realm.
 */
describe('imported Keycloak users in a real browser', () => {
  let server: TestServer;
  let browser: Browser;
  let config: client.Configuration;
  let domains: Map<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server, { basicAuth: true });
    domains = await migrateRealms(
      server,
      FIXTURE_REALMS.filter((r) => r.org === 'kc23' || r.org === 'kc26'),
    );
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const [org, name, password] of [
    ['kc23', 'admin', 'admin'],
    ['kc26', 'frodo', 'frodo'],
  ]) {
    it(`${name} of ${org} signs in with ${name}@<org domain> and reaches the application as itself`, async () => {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      let reached!: (url: string) => void;
      const callback = new Promise<string>((r) => (reached = r));
      await ctx.route('https://rp.example.com/**', async (route) => {
        reached(route.request().url());
        await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>RP</p>' });
      });
      await page.goto(
        client
          .buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid profile', state: 'st' })
          .toString(),
      );
      await page.getByLabel(/Login name|Loginname/).fill(`${name}@${domains.get(org)}`);
      await page.getByRole('button', { name: /Next|Weiter/ }).click();
      await page.getByLabel(/^(Password|Passwort)$/).fill(password);
      await page.getByRole('button', { name: /Sign in|Anmelden/ }).click();
      const tokens = await client.authorizationCodeGrant(config, new URL(await callback), { expectedState: 'st' });
      const info = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
      expect(info.preferred_username).toBe(`${name}@${domains.get(org)}`);
      await ctx.close();
    });
  }
});
