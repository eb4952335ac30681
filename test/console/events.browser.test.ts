import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrgAdministrator, openConsole, startConsole } from '../helpers/console';
import type { TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** The console's events section: the changes just made, by type and aggregate, with their payloads. */
describe('console: events', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());

  it('shows the organization just created in the console, its payload as JSON, found by type and id', async () => {
    const page = await openConsole(browser, server, 'organizations', {
      loginName: 'admin',
      password: server.adminPassword,
    });
    await page.locator('section[aria-busy="false"]').waitFor();
    await page.getByRole('button', { name: 'New organization' }).click();
    await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill('Audited Org');
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Audited Org', level: 1 }).waitFor();
    const orgId = new URL(page.url()).pathname.split('/').at(-1)!;

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

    // by time: nothing was added before the year 2000, and the organization since a minute ago
    await page.getByLabel('Until').fill('2000-01-01T00:00');
    await page.locator('.events li').first().waitFor({ state: 'detached' });
    await page.getByLabel('Until').fill('');
    const minuteAgo = new Date(Date.now() - 60_000 - new Date().getTimezoneOffset() * 60_000);
    await page.getByLabel('Since').fill(minuteAgo.toISOString().slice(0, 16));
    await page.locator('.events li').filter({ hasText: 'Organization added' }).first().waitFor();
    await page.context().close();
  });

  it("an organization's owner reads that organization's events, each type named", async () => {
    const { org, login } = await addOrgAdministrator(server, 'Evented Org', 'ORG_OWNER');
    await addUser(server, { orgId: org.id, username: 'evented-colleague' });
    const page = await openConsole(browser, server, 'events', login);
    const added = page.locator('.events li').filter({ hasText: 'Person added' }).first();
    await added.waitFor();
    await added.locator('summary').click();
    expect(await added.locator('dd code').nth(2).textContent()).toBe(org.id);
    // the filter offers every type by its name, the instance's and an organization's providers apart
    const choices = await page.getByLabel('Event type').locator('option').allTextContents();
    expect(choices).toContain('Organization identity provider added');
    expect(choices).toContain('Instance identity provider added');
    expect(choices.filter((c) => c === 'Identity provider added')).toEqual([]);
    expect(choices.some((c) => c.includes('.'))).toBe(false);
    await page.context().close();
  });

  it('someone who may not read events sees the refusal, not events', async () => {
    const user = await addUser(server);
    const page = await openConsole(browser, server, 'events', { loginName: user.username, password: user.password });
    await page.getByRole('alert').waitFor();
    await expect(page.locator('.events li').count()).resolves.toBe(0);
    await page.context().close();
  });
});
