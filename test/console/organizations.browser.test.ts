import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { addOrg } from '../helpers/orgs';
import { rows } from '../helpers/rows';
import { addOrgAdministrator, openConsole, startConsole } from '../helpers/console';
import type { TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** The console's organizations section: list, search, create with the server's messages, confirmations. */
describe('console: organizations', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());

  it('the instance owner creates an organization in a dialog; an empty name shows the server message', async () => {
    const page = await openConsole(browser, server, 'organizations', {
      loginName: 'admin',
      password: server.adminPassword,
    });
    expect(new URL(page.url()).pathname).toBe('/ui/console/organizations');
    // no form stands open: a button opens it in a dialog, with focus on its field; Escape closes it
    expect(await page.getByLabel('Name', { exact: true }).count()).toBe(0);
    const opener = page.getByRole('button', { name: 'New organization' });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'New organization' });
    await dialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('org-name');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('New organization');

    await opener.click();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const error = page.locator('#org-name-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^name /);
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Name', { exact: true }).fill('Acme Console Corp');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    // the new organization's page opens
    await page.getByRole('heading', { name: 'Acme Console Corp', level: 1 }).waitFor();
    const [org] = await rows(server, `select id, state from orgs where name = 'Acme Console Corp'`);
    expect(org.state).toBe('ACTIVE');
    expect(new URL(page.url()).pathname).toBe(`/ui/console/organizations/${org.id}`);

    // search narrows the list to the match
    await page.getByRole('navigation').getByRole('link', { name: 'Organizations' }).click();
    await page.getByLabel('Search by name').fill('console corp');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await page.context().close();
  });

  it('deleting asks first; cancelling keeps the organization, confirming deletes it', async () => {
    const { id } = await addOrg(server, 'Doomed Org');
    const page = await openConsole(browser, server, 'organizations', {
      loginName: 'admin',
      password: server.adminPassword,
    });
    const row = page.getByRole('row').filter({ hasText: 'Doomed Org' });
    await row.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('Doomed Org');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await rows(server, `select state from orgs where id = '${id}'`))[0].state).toBe('ACTIVE');

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await rows(server, `select state from orgs where id = '${id}'`))[0].state).toBe('REMOVED');
    await page.context().close();
  });

  it('an organization owner sees only their organization', async () => {
    const mine = await addOrg(server, 'Owner Org');
    await addOrg(server, 'Someone Else Org');
    const owner = await addUser(server, { orgId: mine.id });
    await server.client(AdministratorService).createAdministrator({
      userId: owner.id,
      resource: { resource: { case: 'organizationId', value: mine.id } },
      roles: ['ORG_OWNER'],
    });
    const page = await openConsole(browser, server, 'organizations', {
      loginName: `${owner.username}@${mine.primaryDomain}`,
      password: owner.password,
    });
    await page.getByRole('cell', { name: 'Owner Org' }).waitFor();
    const names = await page.locator('tbody tr td:first-child').allTextContents();
    expect(names).toEqual(['Owner Org']);
    // creating organizations is the instance's business: it is not offered
    await expect(page.getByRole('button', { name: 'New organization' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Delete' }).count()).resolves.toBe(1);
    await page.context().close();
  });

  it('an organization user manager sees the organization but is offered no change to it', async () => {
    const { login } = await addOrgAdministrator(server, 'Managed Org', 'ORG_USER_MANAGER');
    const page = await openConsole(browser, server, 'organizations', login);
    await page.getByRole('cell', { name: 'Managed Org' }).waitFor();
    for (const name of ['Deactivate', 'Delete', 'New organization'])
      await expect(page.getByRole('button', { name, exact: true }).count()).resolves.toBe(0);
    await page.context().close();
  });
});
