import { type Browser, chromium, type Page } from 'playwright-core';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { ensureConsoleClient } from '../../src/console/system-client';
import { addOrg } from './orgs';
import { startTestServer, type TestServer } from './server';
import { addUser } from './users';

/** A server whose console client points at the address the test reaches, and a Chromium to drive it. */
export async function startConsole(
  env: Record<string, string> = {},
): Promise<{ server: TestServer; browser: Browser; stop: () => Promise<void> }> {
  const server = await startTestServer(env);
  // The test server learns its port after start; a restart with a new external URL does the same.
  await ensureConsoleClient(server.app.deps, server.url);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  return {
    server,
    browser,
    async stop() {
      await browser.close();
      await server.stop();
    },
  };
}

/** Fills the hosted login the console sends a visitor to (English or German labels). */
export async function signInAt(page: Page, loginName: string, password: string): Promise<void> {
  await page.getByLabel(/Login name|Loginname/).fill(loginName);
  await page.getByRole('button', { name: /Next|Weiter/ }).click();
  await page.getByLabel(/^(Password|Passwort)$/).fill(password);
  await page.getByRole('button', { name: /Sign in|Anmelden/ }).click();
}

/**
 * A fresh browser context signed in to the console (or, with `app: 'account'`, the account page) at
 * `path`: back on the page with its heading, and with the person's permissions known (no section busy),
 * so the actions on offer are final. `origin` replaces the server's URL (WebAuthn needs a domain name).
 */
export async function openConsole(
  browser: Browser,
  server: TestServer,
  path: string,
  who: { loginName: string; password: string },
  view: { width?: number; colorScheme?: 'light' | 'dark'; app?: 'console' | 'account'; origin?: string } = {},
): Promise<Page> {
  const ctx = await browser.newContext({
    locale: 'en-US',
    viewport: { width: view.width ?? 1280, height: 800 },
    colorScheme: view.colorScheme ?? 'light',
  });
  const page = await ctx.newPage();
  await page.goto(`${view.origin ?? server.url}/ui/${view.app ?? 'console'}/${path}`);
  await signInAt(page, who.loginName, who.password);
  await page.locator('main h1').waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  return page;
}

/**
 * A new organization and a user of it holding `role` there: what a test of an organization administrator's
 * view needs, with the login name the hosted login takes.
 */
export async function addOrgAdministrator(server: TestServer, orgName: string, role: string) {
  const org = await addOrg(server, orgName);
  const user = await addUser(server, { orgId: org.id });
  await server.client(AdministratorService).createAdministrator({
    userId: user.id,
    resource: { resource: { case: 'organizationId', value: org.id } },
    roles: [role],
  });
  return { org, user, login: { loginName: `${user.username}@${org.primaryDomain}`, password: user.password } };
}
