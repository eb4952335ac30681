import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIRECT } from '../helpers/apps';
import { Browser as LoginBrowser } from '../helpers/browser';
import { rp } from '../helpers/login-flow';
import { rows } from '../helpers/rows';
import { openConsole, startConsole } from '../helpers/console';
import type { TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** The console's projects section: create a project, open it, add and remove roles. */
describe('console: projects', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());

  it('creates a project, opens it, adds a role (the server names a missing key), removes it after asking', async () => {
    const page = await openConsole(browser, server, 'projects', { loginName: 'admin', password: server.adminPassword });
    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill('Shop');
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    // the new project's page opens, with its id and its organization
    await page.getByRole('heading', { name: 'Shop', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/ui\/console\/projects\/\d+$/);
    const shownId = await page.getByTestId('project-id').textContent();
    expect(shownId).toBe(new URL(page.url()).pathname.split('/').at(-1));
    const [{ org_id: ownerId, name: ownerName }] = await rows(
      server,
      `select p.org_id, o.name from projects p join orgs o on o.id = p.org_id where p.id = '${shownId}'`,
    );
    const owner = page.locator('.facts').getByRole('link', { name: ownerName });
    expect(await owner.getAttribute('href')).toBe(`/ui/console/organizations/${ownerId}`);

    // a new project's empty lists say what fills them
    await page.getByText('No roles yet — add one').waitFor();
    await page.getByText('No applications yet — create one to let users sign in.').waitFor();
    await page.getByRole('button', { name: 'New role' }).click();
    const dialog = page.getByRole('dialog', { name: 'New role' });
    await dialog.getByRole('button', { name: 'Add role' }).click();
    await page.locator('#role-key-error').waitFor();
    expect(await page.locator('#role-key-error').textContent()).toMatch(/^role_key /);

    await dialog.getByLabel('Key').fill('shop.admin');
    await dialog.getByLabel('Display name').fill('Shop administrator');
    await dialog.getByRole('button', { name: 'Add role' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'shop.admin' }).waitFor();
    const projectId = new URL(page.url()).pathname.split('/').at(-1);
    expect(await rows(server, `select key from project_roles where project_id = '${projectId}'`)).toEqual([
      { key: 'shop.admin' },
    ]);

    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('cell', { name: 'shop.admin' }).waitFor({ state: 'detached' });

    // the list names each project's organization
    await page.getByRole('navigation').getByRole('link', { name: 'Projects' }).click();
    const listed = page.getByRole('row').filter({ hasText: 'Shop' });
    await listed.getByRole('cell', { name: ownerName, exact: true }).waitFor();
    expect(await page.getByRole('columnheader', { name: 'Organization' }).count()).toBe(1);

    // the link opens in a new tab as a real link, and the page loads there directly
    const direct = await page.context().newPage();
    await direct.goto(`${server.url}/ui/console/projects/${projectId}`);
    await direct.getByRole('heading', { name: 'Shop', level: 1 }).waitFor();
    await page.context().close();
  });

  it('creates an OIDC web application whose client id and secret, copied from the page, sign a user in', async () => {
    const page = await openConsole(browser, server, 'projects', { loginName: 'admin', password: server.adminPassword });
    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill('Storefront');
    await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Storefront', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New application' }).click();
    const wizard = page.getByRole('dialog', { name: 'New application' });
    await wizard.getByRole('button', { name: 'Next' }).click();
    await wizard.locator('#app-name').fill('Storefront Web');
    await wizard.getByLabel(/^Redirect URIs/).fill(REDIRECT);
    await wizard.getByRole('button', { name: 'Create', exact: true }).click();
    const clientId = (await page.getByTestId('client-id').textContent())!;
    const clientSecret = (await page.getByTestId('client-secret').textContent())!;
    expect(clientId).toMatch(/@storefront$/);
    await page.getByRole('cell', { name: 'Storefront Web' }).waitFor();
    await page.context().close();

    // a relying party configured with what the operator copied
    const user = await addUser(server);
    const config = await rp(server, clientId, clientSecret);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'st',
    });
    const landed = await new LoginBrowser(server.url).login(url.toString(), user.username, user.password);
    const tokens = await client.authorizationCodeGrant(config, new URL(landed), {
      pkceCodeVerifier: verifier,
      expectedState: 'st',
    });
    expect(tokens.claims()!.sub).toBe(user.id);
  });

  it('a user without roles is offered no project to create', async () => {
    const user = await addUser(server);
    const page = await openConsole(browser, server, 'projects', { loginName: user.username, password: user.password });
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await expect(page.getByRole('button', { name: 'New project' }).count()).resolves.toBe(0);
    await page.getByText(/^No projects yet — /).waitFor();
    await page.context().close();
  });
});
