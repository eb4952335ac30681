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

  it('creates a human user, email not verified unless ticked; a missing given name is shown at its field', async () => {
    const page = await openConsole(browser, server, 'users', { loginName: 'admin', password: server.adminPassword });
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog', { name: 'New user' });
    await dialog.getByLabel('Family name').fill('Hopper');
    await dialog.getByLabel('Email', { exact: true }).fill('grace@example.com');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const error = page.locator('#user-givenName-error');
    await error.waitFor();
    expect(await error.textContent()).toContain('human.profile.given_name');

    // whether the address is verified is a choice the form makes plain, and it starts unchecked
    const verified = dialog.getByRole('checkbox', { name: 'The email address is verified' });
    expect(await verified.isChecked()).toBe(false);
    expect(await verified.getAttribute('aria-describedby')).toBe('user-email-verified-hint');
    expect(await page.locator('#user-email-verified-hint').textContent()).toContain('also a login name');
    await dialog.getByLabel('Given name').fill('Grace');
    await dialog.getByLabel('Username').fill('grace');
    await dialog.getByLabel(/Initial password/).fill('Initial-Passw0rd!');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    // the new user's page opens
    await page.getByRole('heading', { name: 'Grace Hopper', level: 1 }).waitFor();
    const [u] = await rows(server, `select id, state, email_verified from users where username = 'grace'`);
    expect(u.state).toBe('ACTIVE');
    expect(u.email_verified).toBe(false);
    expect(new URL(page.url()).pathname).toBe(`/ui/console/users/${u.id}`);
    expect(await page.getByTestId('user-id').textContent()).toBe(u.id);
    // the instance administrator's list spans organizations: it says whose each user is
    await page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
    const grace = page.getByRole('row').filter({ hasText: 'Grace Hopper' });
    const [{ name: orgName }] = await rows(
      server,
      `select o.name from users u join orgs o on o.id = u.org_id where u.id = '${u.id}'`,
    );
    await grace.getByRole('cell', { name: orgName, exact: true }).waitFor();
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
    // ticked, the address is verified at once: the user may sign in with it
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Given name').fill('Vera');
    await dialog.getByLabel('Family name').fill('Rubin');
    await dialog.getByLabel('Email', { exact: true }).fill('vera@managed.example');
    await dialog.getByRole('checkbox', { name: 'The email address is verified' }).check();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Vera Rubin', level: 1 }).waitFor();
    const [vera] = await rows(server, `select email_verified from users where email = 'vera@managed.example'`);
    expect(vera.email_verified).toBe(true);
    await page.context().close();
  });
});
