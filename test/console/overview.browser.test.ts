import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../gen/portcullis/project/v2/project_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { openConsole, signInAt, startConsole } from '../helpers/console';
import { addOrg } from '../helpers/orgs';
import type { TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** The overview: the first page after signing in, for an organization's owner as for the instance's. */
describe('console: overview', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());

  /** Every card has its count (or its dash). */
  const settled = (page: import('playwright-core').Page) =>
    page.waitForFunction(() =>
      Array.from(document.querySelectorAll('.cards .count')).every((c) => c.textContent !== '…'),
    );

  /** The count on the overview's card that leads to `label`'s list. */
  const count = async (page: import('playwright-core').Page, label: string) =>
    (await page.locator('.cards a').filter({ hasText: label }).locator('.count').textContent())?.trim();

  it("an organization's owner signs in for the first time and sees their organization's overview", async () => {
    // all through the API, as an instance administrator would set it up
    const { organizationId } = await server.client(OrganizationService).createOrganization({ name: 'Bakery' });
    const users = server.client(UserService);
    const { id: ownerId } = await users.createUser({
      organizationId,
      username: 'baker',
      userType: {
        case: 'human',
        value: {
          profile: { givenName: 'Bea', familyName: 'Baker' },
          email: { email: 'bea@bakery.example', verification: { case: 'isVerified', value: true } },
          passwordType: { case: 'password', value: { password: 'Initial-Passw0rd!', changeRequired: true } },
        },
      },
    });
    await users.createUser({
      organizationId,
      username: 'apprentice',
      userType: { case: 'machine', value: { name: 'Oven robot' } },
    });
    await server.client(ProjectService).createProject({ organizationId, name: 'Shop' });
    await server.client(AdministratorService).createAdministrator({
      userId: ownerId,
      resource: { resource: { case: 'organizationId', value: organizationId } },
      roles: ['ORG_OWNER'],
    });
    const { organization } = await server.client(OrganizationService).getOrganization({ organizationId });

    const ctx = await browser.newContext({ locale: 'en-US' });
    const page = await ctx.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${server.url}/ui/console/`);
    await signInAt(page, `baker@${organization!.primaryDomain}`, 'Initial-Passw0rd!');
    // the first sign-in asks for a password of their own, then lands on the overview
    await page.getByLabel('New password').fill('Bakers-Own-Passw0rd!');
    await page.getByLabel('Repeat the password').fill('Bakers-Own-Passw0rd!');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByText('The organization Bakery.').waitFor();
    await page.locator('.cards .count', { hasText: /^\d+$/ }).first().waitFor();
    await settled(page);

    expect(await count(page, 'Users')).toBe('2');
    expect(await count(page, 'Projects')).toBe('1');
    expect(await count(page, 'Applications')).toBe('0');
    // signed in just now: today's sessions of the organization count it
    expect(Number(await count(page, 'Sessions today'))).toBeGreaterThanOrEqual(1);
    // the instance's own figures are not theirs to see
    expect(await page.locator('.cards a').filter({ hasText: 'Organizations' }).count()).toBe(0);
    const recent = page.getByRole('region', { name: 'Recent events' });
    await recent.getByText('Project added').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    expect(problems, problems.join('\n')).toEqual([]);
    await ctx.close();
  });

  it('the organization switcher limits the overview and the lists to the organization chosen', async () => {
    const alpha = await addOrg(server, 'Switch Alpha');
    const beta = await addOrg(server, 'Switch Beta');
    await addUser(server, { orgId: alpha.id, username: 'alpha-member' });
    await addUser(server, { orgId: beta.id, username: 'beta-member' });
    const page = await openConsole(browser, server, 'users', { loginName: 'admin', password: server.adminPassword });
    const switcher = page.getByRole('banner').getByLabel('Organization');
    expect(await switcher.locator('option').first().textContent()).toBe('All organizations');
    await page.getByRole('cell', { name: /^alpha-member@/ }).waitFor();
    await page.getByRole('cell', { name: /^beta-member@/ }).waitFor();

    await switcher.selectOption({ label: 'Switch Alpha' });
    await page.getByRole('cell', { name: /^beta-member@/ }).waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: /^alpha-member@/ }).waitFor();
    // one organization's list needs no organization column
    expect(await page.getByRole('columnheader', { name: 'Organization' }).count()).toBe(0);
    await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
    await page.getByText('The organization Switch Alpha.').waitFor();
    await settled(page);
    expect(await count(page, 'Users')).toBe('1');
    // the choice lasts through a reload of the tab
    await page.reload();
    await page.getByText('The organization Switch Alpha.').waitFor();
    await page.context().close();

    // an owner of two organizations chooses between them; the instance is not among the choices
    const owner = await addUser(server, { orgId: alpha.id });
    for (const org of [alpha, beta])
      await server.client(AdministratorService).createAdministrator({
        userId: owner.id,
        resource: { resource: { case: 'organizationId', value: org.id } },
        roles: ['ORG_OWNER'],
      });
    const theirs = await openConsole(browser, server, 'users', {
      loginName: `${owner.username}@${alpha.primaryDomain}`,
      password: owner.password,
    });
    const choices = theirs.getByRole('banner').getByLabel('Organization').locator('option');
    await choices.nth(1).waitFor({ state: 'attached' });
    expect((await choices.allTextContents()).sort()).toEqual(['Switch Alpha', 'Switch Beta']);
    await theirs.getByRole('banner').getByLabel('Organization').selectOption({ label: 'Switch Beta' });
    await theirs.getByRole('cell', { name: /^beta-member@/ }).waitFor();
    expect(await theirs.getByRole('cell', { name: /^alpha-member@/ }).count()).toBe(0);
    await theirs.context().close();
  });

  it('the instance administrator sees the instance: organizations, its facts, and the latest events', async () => {
    const page = await openConsole(browser, server, '', { loginName: 'admin', password: server.adminPassword });
    await page.getByText('Everything on this instance.').waitFor();
    await settled(page);
    expect(Number(await count(page, 'Organizations'))).toBeGreaterThanOrEqual(1);
    expect(Number(await count(page, 'Sessions today'))).toBeGreaterThanOrEqual(1);
    await page.getByRole('heading', { name: 'Instance', level: 2 }).waitFor();
    await page.getByRole('region', { name: 'Recent events' }).locator('li').first().waitFor();
    // a card leads to its list
    await page.locator('.cards a').filter({ hasText: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await page.context().close();
  });
});
