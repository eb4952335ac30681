import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleClient } from '../../src/console/system-client';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** The console's events section: the changes just made, by type and aggregate, with their payloads. */
describe('console: events', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    await ensureConsoleClient(server.app.database, server.url);
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signedIn(loginName: string, password: string, path: string) {
    const ctx = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui/console/${path}`);
    await page.getByLabel(/Login name/).fill(loginName);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel(/^Password$/).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('main h1').waitFor();
    return page;
  }

  it('shows the organization just created in the console, its payload as JSON, found by type and id', async () => {
    const page = await signedIn('admin', server.adminPassword, 'organizations');
    await page.locator('section[aria-busy="false"]').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Audited Org');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const orgId = (await page.locator('.ok code').textContent())!;

    await page.getByRole('navigation').getByRole('link', { name: 'Events' }).click();
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
    await page.getByLabel('Aggregate ID').fill(orgId);
    const added = page.locator('.events li').filter({ hasText: 'Organization added' });
    await added.waitFor();
    await added.locator('summary').click();
    const payload = JSON.parse((await added.locator('pre.payload').textContent())!);
    expect(payload).toMatchObject({ name: 'Audited Org' });
    expect(await added.textContent()).toContain('Portcullis Administrator');

    await page.getByLabel('Aggregate ID').fill('');
    await page.getByLabel('Event type').selectOption({ label: 'Organization added' });
    await page.locator('.events li').first().waitFor();
    const kinds = await page.locator('.events summary strong').allTextContents();
    expect(new Set(kinds)).toEqual(new Set(['Organization added']));
    await page.context().close();
  });

  it('someone who may not read events sees the refusal, not events', async () => {
    const user = await addUser(server);
    const page = await signedIn(user.username, user.password, 'events');
    await page.getByRole('alert').waitFor();
    await expect(page.locator('.events li').count()).resolves.toBe(0);
    await page.context().close();
  });
});
