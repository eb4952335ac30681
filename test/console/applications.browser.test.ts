import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { importPKCS8, SignJWT } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { OidcAuthMethodType } from '../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { addProject } from '../helpers/apps';
import { Browser as LoginBrowser } from '../helpers/browser';
import { openConsole, startConsole } from '../helpers/console';
import { basic, postForm } from '../helpers/forms';
import { addOrg } from '../helpers/orgs';
import { rows } from '../helpers/rows';
import type { TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** The console's applications: the wizard, an application's page (live compliance problems), secret and keys. */
describe('console: applications', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let projectId: string;
  const admin = () => ({ loginName: 'admin', password: server.adminPassword });
  // the client authenticates at the introspection endpoint: 200 when it does, 401 when it does not
  const introspect = async (form: Record<string, string>, headers: Record<string, string> = {}) =>
    (await postForm(server, '/oauth/v2/introspect', { token: 'not-a-token', ...form }, headers)).status;
  const webApp = async (name: string, authMethodType = OidcAuthMethodType.BASIC) =>
    server.client(ApplicationService).createApplication({
      projectId,
      name,
      configuration: { case: 'oidc', value: { redirectUris: ['https://app.example.com/cb'], authMethodType } },
    });

  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
    projectId = await addProject(server, { name: 'Apps' });
  });
  afterAll(() => stop?.());

  it('the wizard creates a web application whose client id and secret, shown once, authenticate', async () => {
    const page = await openConsole(browser, server, `projects/${projectId}`, admin());
    await page.getByRole('button', { name: 'New application' }).click();
    await page.getByRole('radio', { name: /Web application/ }).check();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Storefront');
    await page.getByLabel(/^Redirect URIs/).fill('https://shop.example.com/cb');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const clientId = (await page.getByTestId('client-id').textContent())!;
    const clientSecret = (await page.getByTestId('client-secret').textContent())!;
    expect(clientId).toMatch(/@apps$/);
    expect(await introspect({}, { authorization: basic(clientId, clientSecret) })).toBe(200);
    const [app] = await rows(server, `select id, oidc from applications where name = 'Storefront'`);
    expect(app.oidc).toMatchObject({
      redirectUris: ['https://shop.example.com/cb'],
      applicationType: 'WEB',
      authMethodType: 'BASIC',
      grantTypes: ['AUTHORIZATION_CODE', 'REFRESH_TOKEN'],
    });

    // leaving the last step opens the application; the secret is not shown again
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('heading', { name: 'Storefront', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/ui/console/projects/${projectId}/applications/${app.id}`);
    await expect(page.getByTestId('client-secret').count()).resolves.toBe(0);
    await page.context().close();
  });

  it('the overview shows issuer and discovery URL by the credentials; its openid-client code signs in', async () => {
    const { applicationId, configuration } = await server.client(ApplicationService).createApplication({
      projectId,
      name: 'Connected',
      configuration: { case: 'oidc', value: { redirectUris: ['https://rp.example.com/cb'] } },
    });
    const { clientId, clientSecret } = configuration.value as { clientId: string; clientSecret: string };
    const page = await openConsole(browser, server, `projects/${projectId}/applications/${applicationId}`, admin());
    expect(await page.getByRole('tab', { name: 'Overview' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByTestId('app-client-id').textContent()).toBe(clientId);
    expect(await page.getByTestId('app-issuer').textContent()).toBe(server.url);
    const discovery = (await page.getByTestId('app-discovery').textContent())!;
    expect(discovery).toBe(`${server.url}/.well-known/openid-configuration`);
    expect((await fetch(discovery)).status).toBe(200);
    expect(await page.getByTestId('app-id').textContent()).toBe(applicationId);
    const code = (await page.getByTestId('app-snippet').textContent())!;
    expect(code).toContain(clientId);
    expect(code).toContain('https://rp.example.com/cb');
    expect(code).not.toContain(clientSecret);
    await page.context().close();

    // the code as copied, with the secret in its environment variable, signs a user in
    const dir = path.join(process.cwd(), 'node_modules', '.cache');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `portcullis-snippet-${randomUUID()}.mjs`);
    await writeFile(file, code);
    process.env.PORTCULLIS_CLIENT_SECRET = clientSecret;
    try {
      const rp = await import(/* @vite-ignore */ pathToFileURL(file).href);
      const start = await rp.signInUrl();
      const user = await addUser(server);
      const landed = await new LoginBrowser(server.url).login(start.url.toString(), user.username, user.password);
      const claims = await rp.callback(new URL(landed), start);
      expect(claims.sub).toBe(user.id);
    } finally {
      delete process.env.PORTCULLIS_CLIENT_SECRET;
      await rm(file, { force: true });
    }
  });

  it('an http redirect URI on a web app shows the compliance problem while typing, before saving', async () => {
    const { applicationId } = await webApp('Checked');
    // the settings tab has an address of its own
    const path = `projects/${projectId}/applications/${applicationId}/settings`;
    const page = await openConsole(browser, server, path, admin());
    expect(await page.getByRole('tab', { name: 'Redirects and settings' }).getAttribute('aria-selected')).toBe('true');
    await page.getByLabel(/^Redirect URIs/).fill('http://app.example.com/cb');
    const problem = page.locator('#app-redirects-note li');
    await problem.waitFor();
    expect(await problem.getAttribute('data-key')).toBe('OIDC.RedirectUris.HttpNotAllowed');
    expect(await problem.textContent()).toContain('http://app.example.com/cb');
    // nothing was saved by the check
    const [before] = await rows(server, `select oidc from applications where id = '${applicationId}'`);
    expect(before.oidc.redirectUris).toEqual(['https://app.example.com/cb']);

    // development mode allows it: the problem goes away, live too; Save stores it
    await page.getByRole('checkbox', { name: /Development mode/ }).check();
    await problem.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const [after] = await rows(server, `select oidc from applications where id = '${applicationId}'`);
    expect(after.oidc).toMatchObject({ redirectUris: ['http://app.example.com/cb'], developmentMode: true });
    await page.context().close();
  });

  it('a new secret is shown once after asking, the old one stops working; a viewer sees it read-only', async () => {
    const { applicationId, configuration } = await webApp('Rotated');
    const created = configuration.value as { clientId: string; clientSecret: string };
    const page = await openConsole(browser, server, `projects/${projectId}/applications/${applicationId}`, admin());
    await page.getByRole('button', { name: 'New client secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'New client secret' }).click();
    const secret = (await page.getByTestId('client-secret').textContent())!;
    expect(secret).not.toBe(created.clientSecret);
    expect(await introspect({}, { authorization: basic(created.clientId, secret) })).toBe(200);
    expect(await introspect({}, { authorization: basic(created.clientId, created.clientSecret) })).toBe(401);
    await page.context().close();

    const viewer = await addUser(server);
    await server.client(AdministratorService).createAdministrator({
      userId: viewer.id,
      resource: { resource: { case: 'projectId', value: projectId } },
      roles: ['PROJECT_OWNER_VIEWER'],
    });
    const seen = await openConsole(browser, server, `projects/${projectId}/applications/${applicationId}`, {
      loginName: viewer.username,
      password: viewer.password,
    });
    await seen.getByRole('heading', { name: 'Rotated', level: 1 }).waitFor();
    for (const name of ['New client secret', 'Deactivate', 'Delete'])
      await expect(seen.getByRole('button', { name, exact: true }).count()).resolves.toBe(0);
    await seen.getByRole('tab', { name: 'Redirects and settings' }).click();
    expect(await seen.getByLabel(/^Redirect URIs/).isDisabled()).toBe(true);
    await expect(seen.getByRole('button', { name: 'Save', exact: true }).count()).resolves.toBe(0);
    await seen.context().close();
  });

  it('a key file is downloaded once and its key signs an accepted assertion; another org sees nothing', async () => {
    const { applicationId, configuration } = await webApp('Keyed', OidcAuthMethodType.PRIVATE_KEY_JWT);
    const { clientId } = configuration.value as { clientId: string };
    const page = await openConsole(browser, server, `projects/${projectId}/applications/${applicationId}`, admin());
    // the keys have their own tab; the arrow keys move between the tabs
    await page.getByRole('tab', { name: 'Overview' }).focus();
    await page.keyboard.press('End');
    expect(await page.getByRole('tab', { name: 'Keys' }).getAttribute('aria-selected')).toBe('true');
    expect(new URL(page.url()).pathname).toMatch(/\/keys$/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Add key' }).click(),
    ]);
    const file = JSON.parse(await readFile((await download.path())!, 'utf8'));
    expect(file).toMatchObject({ type: 'application', appId: applicationId, clientId });
    await page.getByRole('cell', { name: file.keyId }).waitFor();
    const keys = await server.client(ApplicationService).listApplicationKeys({ applicationId });
    expect(keys.keys.map((k) => k.keyId)).toEqual([file.keyId]);
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ iss: clientId, sub: clientId, aud: server.url, jti: randomUUID() })
      .setProtectedHeader({ alg: 'RS256', kid: file.keyId })
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(await importPKCS8(file.key, 'RS256'));
    const form = { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' };
    expect(await introspect({ ...form, client_id: clientId, client_assertion: assertion })).toBe(200);
    await page.context().close();

    const other = await addOrg(server, 'Elsewhere');
    const owner = await addUser(server, { orgId: other.id });
    await server.client(AdministratorService).createAdministrator({
      userId: owner.id,
      resource: { resource: { case: 'organizationId', value: other.id } },
      roles: ['ORG_OWNER'],
    });
    const outsider = await openConsole(browser, server, `projects/${projectId}/applications/${applicationId}`, {
      loginName: `${owner.username}@${other.primaryDomain}`,
      password: owner.password,
    });
    await outsider.getByRole('alert').waitFor();
    await expect(outsider.getByText('Keyed').count()).resolves.toBe(0);
    await expect(outsider.getByText(clientId).count()).resolves.toBe(0);
    await outsider.context().close();
  });
});
