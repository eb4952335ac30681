import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { AuthorizationService } from '../../gen/portcullis/authorization/v2/authorization_service_pb';
import { IdentityProviderService } from '../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { ProjectService } from '../../gen/portcullis/project/v2/project_service_pb';
import { defaultOrgId } from '../helpers/context';
import { openConsole, startConsole } from '../helpers/console';
import { addOrg } from '../helpers/orgs';
import { rows } from '../helpers/rows';
import type { TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** A project with roles in an organization, made through the API as the instance owner. */
async function addProject(server: TestServer, orgId: string, name: string, roles: string[]) {
  const projects = server.client(ProjectService);
  const { projectId } = await projects.createProject({ organizationId: orgId, name });
  for (const roleKey of roles) await projects.addProjectRole({ projectId, roleKey, displayName: roleKey });
  return projectId;
}

/** Picks a user in a user picker: the search narrows the select, then the match is chosen. */
async function pickUser(page: Page, id: string, username: string) {
  await page.locator(`#${id}-search`).fill(username);
  const option = page.locator(`#${id} option`, { hasText: username });
  await option.waitFor({ state: 'attached' });
  await page.locator(`#${id}`).selectOption((await option.getAttribute('value'))!);
}

/** The console's access sections: authorizations, administrators, project grants, identity providers. */
describe('console: access', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());

  it('the instance owner gives a user a project role, changes the roles, deactivates and deletes it', async () => {
    const projectId = await addProject(server, await defaultOrgId(server), 'Bakery', ['baker', 'cashier']);
    const user = await addUser(server);
    const page = await openConsole(browser, server, 'authorizations', {
      loginName: 'admin',
      password: server.adminPassword,
    });
    await page.getByRole('button', { name: 'New authorization' }).click();
    await pickUser(page, 'authz-user', user.username);
    await page.locator('#authz-project').selectOption({ label: 'Bakery' });
    await page.getByRole('checkbox', { name: 'baker (baker)' }).check();
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('cell', { name: 'baker', exact: true }).waitFor();
    expect(
      await rows(server, `select role_keys from authorizations where user_id = '${user.id}' and state = 'ACTIVE'`),
    ).toEqual([{ role_keys: ['baker'] }]);

    const row = page.getByRole('row', { name: /Bakery/ });
    await row.getByRole('button', { name: 'Change roles' }).click();
    const change = page.getByRole('dialog', { name: 'Change roles on “Bakery”' });
    await change.locator('#authz-edit-roles').getByRole('checkbox', { name: 'cashier (cashier)' }).check();
    await change.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'baker, cashier' }).waitFor();
    const { authorizations } = await server.client(AuthorizationService).listAuthorizations({ projectId });
    expect(authorizations.map((a) => a.roleKeys)).toEqual([['baker', 'cashier']]);

    await row.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Deactivate' }).click();
    await row.getByRole('cell', { name: 'Inactive' }).waitFor();
    expect(await rows(server, `select state from authorizations where user_id = '${user.id}'`)).toEqual([
      { state: 'INACTIVE' },
    ]);

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('cell', { name: 'baker, cashier' }).waitFor({ state: 'detached' });
    expect(
      await rows(server, `select id from authorizations where user_id = '${user.id}' and state = 'ACTIVE'`),
    ).toEqual([]);
    await page.context().close();
  });

  it('makes a user an organization owner; that owner sees only their organization and its memberships', async () => {
    const mine = await addOrg(server, 'Pastry Org');
    const other = await addOrg(server, 'Butcher Org');
    const owner = await addUser(server, { orgId: mine.id });
    // the other organization has an authorization and an administrator the owner must not see
    const otherProject = await addProject(server, other.id, 'Sausages', ['butcher']);
    const stranger = await addUser(server, { orgId: other.id });
    await server.client(AuthorizationService).createAuthorization({
      userId: stranger.id,
      projectId: otherProject,
      roleKeys: ['butcher'],
    });
    await server.client(AdministratorService).createAdministrator({
      userId: stranger.id,
      resource: { resource: { case: 'organizationId', value: other.id } },
      roles: ['ORG_USER_MANAGER'],
    });

    const admin = await openConsole(browser, server, 'administrators', {
      loginName: 'admin',
      password: server.adminPassword,
    });
    await admin.getByRole('button', { name: 'New administrator' }).click();
    await pickUser(admin, 'admin-user', owner.username);
    await admin.getByLabel('Resource').selectOption({ label: 'Organization: Pastry Org' });
    await admin.getByRole('checkbox', { name: 'ORG_OWNER', exact: true }).check();
    await admin.getByRole('dialog').getByRole('button', { name: 'Add', exact: true }).click();
    await admin.getByRole('cell', { name: 'Organization: Pastry Org' }).waitFor();
    expect(
      await rows(
        server,
        `select roles from administrators where user_id = '${owner.id}' and resource_id = '${mine.id}'`,
      ),
    ).toEqual([{ roles: ['ORG_OWNER'] }]);
    await admin.context().close();

    const who = { loginName: `${owner.username}@${mine.primaryDomain}`, password: owner.password };
    const page = await openConsole(browser, server, 'organizations', who);
    await page.getByRole('cell', { name: 'Pastry Org' }).waitFor();
    expect(await page.locator('tbody tr td:first-child').allTextContents()).toEqual(['Pastry Org']);
    await expect(page.getByRole('button', { name: 'New organization' }).count()).resolves.toBe(0);

    await page.getByRole('link', { name: 'Administrators' }).click();
    await page.getByRole('cell', { name: 'ORG_OWNER' }).waitFor();
    // the organization's name arrives with its own query, after the row
    await page.getByRole('cell', { name: 'Organization: Pastry Org' }).waitFor();
    expect(await page.locator('tbody tr td:nth-child(2)').allTextContents()).toEqual(['Organization: Pastry Org']);
    // the instance is not theirs to give
    await page.getByRole('button', { name: 'New administrator' }).click();
    const offered = await page.locator('#admin-resource option').allTextContents();
    expect(offered).toEqual(['Organization: Pastry Org']);

    await page.keyboard.press('Escape');
    await page.getByRole('link', { name: 'Authorizations' }).click();
    await page.getByRole('heading', { name: 'Authorizations', level: 1 }).waitFor();
    await page
      .locator('main')
      .getByText(/No authorizations yet/)
      .waitFor();
    await expect(page.getByRole('cell', { name: 'butcher' }).count()).resolves.toBe(0);
    await page.context().close();
  });

  it('grants a project to another organization with one role; that organization sees it read only', async () => {
    const projectId = await addProject(server, await defaultOrgId(server), 'Mill', ['miller', 'carrier']);
    const partner = await addOrg(server, 'Flour Partner Org');
    const page = await openConsole(browser, server, `projects/${projectId}`, {
      loginName: 'admin',
      password: server.adminPassword,
    });
    await page.getByRole('button', { name: 'Grant to an organization' }).click();
    await page.locator('#grant-org').selectOption({ label: 'Flour Partner Org' });
    await page.locator('#grant-roles').getByRole('checkbox', { name: 'miller (miller)' }).check();
    await page.getByRole('dialog').getByRole('button', { name: 'Grant', exact: true }).click();
    const row = page.getByRole('row', { name: /Flour Partner Org/ });
    await row.getByRole('cell', { name: 'miller', exact: true }).waitFor();
    expect(
      await rows(server, `select role_keys, state from project_grants where granted_org_id = '${partner.id}'`),
    ).toEqual([{ role_keys: ['miller'], state: 'ACTIVE' }]);

    await row.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Deactivate' }).click();
    await row.getByRole('cell', { name: 'Inactive' }).waitFor();
    await row.getByRole('button', { name: 'Activate' }).click();
    await row.getByRole('cell', { name: 'Active', exact: true }).waitFor();
    await page.context().close();

    const owner = await addUser(server, { orgId: partner.id });
    await server.client(AdministratorService).createAdministrator({
      userId: owner.id,
      resource: { resource: { case: 'organizationId', value: partner.id } },
      roles: ['ORG_OWNER'],
    });
    const granted = await openConsole(browser, server, `projects/${projectId}`, {
      loginName: `${owner.username}@${partner.primaryDomain}`,
      password: owner.password,
    });
    await granted.getByRole('heading', { name: 'Mill', level: 1 }).waitFor();
    await granted.getByRole('cell', { name: 'Flour Partner Org' }).waitFor();
    // only the granted role, and no change offered
    await expect(granted.getByRole('cell', { name: 'carrier' }).count()).resolves.toBe(0);
    for (const name of ['Grant to an organization', 'New role', 'Change roles', 'Delete'])
      await expect(granted.getByRole('button', { name, exact: true }).count()).resolves.toBe(0);
    await granted.context().close();
  });
  it('creates a generic OpenID Connect provider; it is listed, edited without its secret shown, deleted', async () => {
    const page = await openConsole(browser, server, 'identity-providers', {
      loginName: 'admin',
      password: server.adminPassword,
    });
    await page.getByRole('button', { name: 'New identity provider' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Partner SSO');
    await page.getByLabel('Issuer URL').fill('https://sso.partner.example');
    await page.getByLabel('Client ID').fill('portcullis-client');
    await page.getByLabel('Client secret').fill('s3cret-upstream');
    await page.getByRole('checkbox', { name: 'creates the account without asking' }).check();
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    // the address to register at the provider, once it exists
    await page.getByRole('dialog').getByText('/idps/callback').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).last().click();
    const row = page.getByRole('row', { name: /Partner SSO/ });
    await row.getByRole('cell', { name: 'OpenID Connect (OIDC)' }).waitFor();
    const { result } = await server.client(IdentityProviderService).listIdentityProviders({});
    const created = result.find((p) => p.name === 'Partner SSO')!;
    expect(created.config.case === 'genericOidc' && created.config.value.issuer).toBe('https://sso.partner.example');
    expect(created.options?.isAutoCreation).toBe(true);

    await row.getByRole('button', { name: 'Edit' }).click();
    expect(await page.getByLabel(/^Client secret/).inputValue()).toBe('');
    await page.getByLabel('Name', { exact: true }).fill('Partner Login');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    const renamed = page.getByRole('row', { name: /Partner Login/ });
    await renamed.waitFor();
    // the secret left empty in the form is not erased
    expect(
      await rows(server, `select name, secrets is not null as kept from identity_providers where id = '${created.id}'`),
    ).toEqual([{ name: 'Partner Login', kept: true }]);

    await renamed.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await renamed.waitFor({ state: 'detached' });
    await page.context().close();
  });
});
