import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { addOrg } from '../helpers/orgs';
import { rows } from '../helpers/rows';
import { openConsole, signInAt, startConsole } from '../helpers/console';
import type { TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** The console's users section: create with the server's field messages, lock and unlock, what a manager sees. */
describe('console: users', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());

  it('creates a human user; a missing given name is shown at its field; the user can sign in', async () => {
    const page = await openConsole(browser, server, 'users', { loginName: 'admin', password: server.adminPassword });
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog', { name: 'New user' });
    await dialog.getByLabel('Family name').fill('Hopper');
    await dialog.getByLabel('Email').fill('grace@example.com');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const error = page.locator('#user-givenName-error');
    await error.waitFor();
    expect(await error.textContent()).toContain('human.profile.given_name');

    await dialog.getByLabel('Given name').fill('Grace');
    await dialog.getByLabel('Username').fill('grace');
    await dialog.getByLabel(/Initial password/).fill('Initial-Passw0rd!');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    // the new user's page opens
    await page.getByRole('heading', { name: 'Grace Hopper', level: 1 }).waitFor();
    const [u] = await rows(server, `select id, state from users where username = 'grace'`);
    expect(u.state).toBe('ACTIVE');
    expect(new URL(page.url()).pathname).toBe(`/ui/console/users/${u.id}`);
    await page.context().close();

    // Grace signs in with the initial password and must choose her own first
    const ctx = await browser.newContext({ locale: 'en-US' });
    const hers = await ctx.newPage();
    await hers.goto(`${server.url}/ui/console/`);
    await signInAt(hers, 'grace', 'Initial-Passw0rd!');
    await hers.getByLabel('New password').fill('Graces-Own-Passw0rd!');
    await hers.getByLabel('Repeat the password').fill('Graces-Own-Passw0rd!');
    await hers.getByRole('button', { name: 'Change password' }).click();
    await hers.getByText('Signed in as').waitFor();
    expect(await hers.getByText('Grace Hopper').count()).toBe(1);
    await ctx.close();
  });

  it('locking asks first and locks; unlocking needs no question', async () => {
    const victim = await addUser(server, { username: 'lockme' });
    const page = await openConsole(browser, server, 'users', { loginName: 'admin', password: server.adminPassword });
    await page.getByLabel('Search').fill('lockme');
    const row = page.getByRole('row').filter({ hasText: 'lockme' });
    await row.getByRole('button', { name: 'Lock' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Lock' }).click();
    await row.getByRole('button', { name: 'Unlock' }).waitFor();
    expect((await rows(server, `select state from users where id = '${victim.id}'`))[0].state).toBe('LOCKED');
    await row.getByRole('button', { name: 'Unlock' }).click();
    await row.getByRole('button', { name: 'Lock' }).waitFor();
    expect((await rows(server, `select state from users where id = '${victim.id}'`))[0].state).toBe('ACTIVE');
    await page.context().close();
  });

  it('an organization user manager sees and creates users of their organization only', async () => {
    const org = await addOrg(server, 'Managed Users Org');
    await addUser(server, { orgId: org.id, username: 'colleague' });
    const manager = await addUser(server, { orgId: org.id });
    await server.client(AdministratorService).createAdministrator({
      userId: manager.id,
      resource: { resource: { case: 'organizationId', value: org.id } },
      roles: ['ORG_USER_MANAGER'],
    });
    const page = await openConsole(browser, server, 'users', {
      loginName: `${manager.username}@${org.primaryDomain}`,
      password: manager.password,
    });
    await page.getByRole('cell', { name: /^colleague@/ }).waitFor();
    const logins = await page.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(logins.every((l) => l.endsWith(`@${org.primaryDomain}`))).toBe(true);
    expect(logins.some((l) => l.startsWith('admin@'))).toBe(false);
    await page.getByRole('button', { name: 'New user' }).click();
    const choices = await page.getByRole('dialog').getByLabel('Organization').locator('option').allTextContents();
    expect(choices).toEqual(['Managed Users Org']);
    await page.context().close();
  });
});
