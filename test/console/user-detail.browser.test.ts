import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { AuthenticationMethodType } from '../../gen/portcullis/user/v2/authentication_methods_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { addReadyFactor } from '../helpers/factors';
import { addOrg } from '../helpers/orgs';
import { rows } from '../helpers/rows';
import { openConsole, signInAt, startConsole } from '../helpers/console';
import type { TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** The user detail page: a machine user's token, metadata, a session ended, and another organization's user. */
describe('console: user detail', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  const admin = () => ({ loginName: 'admin', password: server.adminPassword });
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());

  it('creates a machine user; its token is shown once, works, and once removed is refused', async () => {
    const page = await openConsole(browser, server, 'users', admin());
    await page.getByRole('button', { name: 'New user' }).click();
    const form = page.getByRole('dialog', { name: 'New user' });
    await form.getByLabel('Kind').selectOption('machine');
    await form.getByLabel('Username').fill('robot');
    await form.getByLabel('Name', { exact: true }).fill('Build robot');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Build robot' }).waitFor();

    await page.getByRole('button', { name: 'New token' }).click();
    const token = (await page.locator('form[aria-label="New token"] code').textContent()) ?? '';
    expect(token).toMatch(/^pcp_/);
    const mine = await server.client(AdministratorService, { token }).listMyPermissions({});
    expect(mine.memberships).toEqual([]);

    await page.getByRole('row').filter({ hasText: 'Never' }).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('row').filter({ hasText: 'Never' }).waitFor({ state: 'detached' });
    await expect(server.client(AdministratorService, { token }).listMyPermissions({})).rejects.toThrow();
    await page.context().close();
  });

  it('removes a TOTP factor; edits the profile, email, password (must change); sets, removes metadata', async () => {
    const user = await addUser(server, { username: 'meta' });
    await addReadyFactor(server, { id: user.id, orgId: user.orgId }, 'totp');
    const page = await openConsole(browser, server, `users/${user.id}`, admin());
    const totp = page.getByRole('row').filter({ hasText: 'Authenticator app (TOTP)' });
    await totp.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await totp.waitFor({ state: 'detached' });
    const methods = await server.client(UserService).listAuthenticationMethodTypes({ userId: user.id });
    expect(methods.authMethodTypes).not.toContain(AuthenticationMethodType.TOTP);
    await page.getByRole('textbox', { name: 'Email' }).fill('meta.new@example.com');
    await page.getByRole('form', { name: 'Email' }).getByLabel('Mark as verified').check();
    await page.getByRole('form', { name: 'Email' }).getByRole('button', { name: 'Save' }).click();
    await page.getByLabel('Nickname').fill('Mets');
    await page.getByRole('form', { name: 'Profile' }).getByRole('button', { name: 'Save' }).click();
    await page.getByLabel(/Initial password/).fill('Another-Passw0rd!');
    await page.getByRole('button', { name: 'Set password' }).click();
    const columns = 'nick_name, email, email_verified, password_change_required';
    const stateOf = `select ${columns} from users where id = '${user.id}'`;
    await expect
      .poll(async () => (await rows(server, stateOf))[0])
      .toEqual({
        nick_name: 'Mets',
        email: 'meta.new@example.com',
        email_verified: true,
        password_change_required: true,
      });
    // an invitation goes out by email to the address just set
    await page.getByRole('button', { name: 'Send an invitation by email' }).click();
    const invitations = `select recipient from notifications where user_id = '${user.id}' and kind = 'INVITATION'`;
    await expect.poll(async () => await rows(server, invitations)).toEqual([{ recipient: 'meta.new@example.com' }]);
    await page.getByLabel('Key', { exact: true }).fill('cost-center');
    await page.getByLabel('Value', { exact: true }).fill('4711');
    await page.getByRole('button', { name: 'Set metadata' }).click();
    await page.getByRole('cell', { name: '4711' }).waitFor();
    const stored = await rows(server, `select key, value from user_metadata where user_id = '${user.id}'`);
    expect(stored.map((r) => r.key)).toEqual(['cost-center']);

    await page.getByRole('row').filter({ hasText: 'cost-center' }).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('cell', { name: '4711' }).waitFor({ state: 'detached' });
    expect(await rows(server, `select key from user_metadata where user_id = '${user.id}'`)).toEqual([]);
    await page.context().close();
  });

  it("shows a user's session made through the hosted login with browser, address, application; ends it", async () => {
    const user = await addUser(server, { username: 'sessioned' });
    const ctx = await browser.newContext({ locale: 'en-US' });
    const theirs = await ctx.newPage();
    await theirs.goto(`${server.url}/ui/console/`);
    await signInAt(theirs, user.username, user.password);
    await theirs.getByText('Signed in as').waitFor();
    const [session] = await rows(server, `select id from sessions where user_id = '${user.id}'`);

    const page = await openConsole(browser, server, `users/${user.id}`, admin());
    // the session says where it signed in from: the browser, its address, the application
    const row = page.getByRole('region', { name: 'Sessions' }).getByRole('row').filter({ hasText: 'Console' });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/Chrome \d+ on Linux/);
    expect(await row.getByRole('cell', { name: '127.0.0.1' }).count()).toBe(1);
    await row.getByRole('button', { name: 'Terminate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Terminate' }).click();
    await row.waitFor({ state: 'detached' });
    const [after] = await rows(server, `select terminated_at from sessions where id = '${session.id}'`);
    expect(after.terminated_at).not.toBeNull();
    await page.context().close();
    await ctx.close();
  });

  it("a user manager is refused another organization's user, and sees no sessions part for their own", async () => {
    const [orgA, orgB] = [await addOrg(server, 'Org A'), await addOrg(server, 'Org B')];
    const stranger = await addUser(server, { orgId: orgB.id, username: 'stranger' });
    const manager = await addUser(server, { orgId: orgA.id });
    await server.client(AdministratorService).createAdministrator({
      userId: manager.id,
      resource: { resource: { case: 'organizationId', value: orgA.id } },
      roles: ['ORG_USER_MANAGER'],
    });
    const ctx = await browser.newContext({ locale: 'en-US' });
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui/console/users/${stranger.id}`);
    await signInAt(page, `${manager.username}@${orgA.primaryDomain}`, manager.password);
    await page.getByRole('alert').waitFor();
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toMatch(/may not see this|not found/i);
    expect(text).not.toContain('stranger');
    expect(text).not.toContain('Lovelace');

    // a user of their own organization: changes offered, not the instance administrator's sessions part
    const colleague = await addUser(server, { orgId: orgA.id, username: 'colleague' });
    await page.goto(`${server.url}/ui/console/users/${colleague.id}`);
    await page.getByRole('button', { name: 'Set metadata' }).waitFor();
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
    expect(await page.getByRole('heading', { name: 'Sessions' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Administrator roles' }).count()).toBe(0);
    await ctx.close();
  });
});
