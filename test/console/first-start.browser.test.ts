import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIRECT } from '../helpers/apps';
import { signInAt, startConsole } from '../helpers/console';
import { rp } from '../helpers/login-flow';
import { rows } from '../helpers/rows';
import type { TestServer } from '../helpers/server';

/**
 * A new operator's first hour, in the console alone: the generated `admin` password is replaced at the first
 * sign-in; an organization, a project with a role, a web application (its credentials copied from the page), a
 * user and that user's authorization are made; then a relying party signs the user in with those
 * credentials and sees the role, and the events page shows what was done.
 */
describe('console: first start', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    // no PORTCULLIS_ADMIN_PASSWORD: the first start generates one, as `npm start` does
    ({ server, browser, stop } = await startConsole({ PORTCULLIS_ADMIN_PASSWORD: '' }));
  });
  afterAll(() => stop?.());

  it('admin replaces the generated password, builds an application for a user, who then signs in there', async () => {
    const generated = server.app.bootstrap.adminPassword!;
    expect(server.app.bootstrap.generatedPassword).toBe(true);
    const ctx = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    await page.goto(`${server.url}/ui/console/`);
    await signInAt(page, 'admin', generated);
    await page.getByLabel('New password').fill('Operators-Own-Passw0rd!');
    await page.getByLabel('Repeat the password').fill('Operators-Own-Passw0rd!');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('main h1').waitFor();
    const nav = page.getByRole('navigation');
    const section = async (name: string) => {
      await nav.getByRole('link', { name }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
    };

    // each create action opens its form in a dialog
    const dialog = page.getByRole('dialog');
    await section('Organizations');
    await page.getByRole('button', { name: 'New organization' }).click();
    await dialog.getByLabel('Name', { exact: true }).fill('Acme Journeys');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Acme Journeys', level: 1 }).waitFor();

    await section('Projects');
    await page.getByRole('button', { name: 'New project' }).click();
    await dialog.getByLabel('Organization').selectOption({ label: 'Acme Journeys' });
    await dialog.getByLabel('Name', { exact: true }).fill('Acme Shop');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Acme Shop', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New role' }).click();
    await dialog.getByLabel('Key').fill('buyer');
    await dialog.getByLabel('Display name').fill('Buyer');
    await dialog.getByRole('button', { name: 'Add role' }).click();
    await page.getByRole('cell', { name: 'buyer', exact: true }).waitFor();

    await page.getByRole('button', { name: 'New application' }).click();
    await page.getByRole('radio', { name: /Web application/ }).check();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.locator('#app-name').fill('Acme Storefront');
    await page.getByLabel(/^Redirect URIs/).fill(REDIRECT);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const clientId = (await page.getByTestId('client-id').textContent())!;
    const clientSecret = (await page.getByTestId('client-secret').textContent())!;
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('heading', { name: 'Acme Storefront', level: 1 }).waitFor();

    await section('Users');
    await page.getByRole('button', { name: 'New user' }).click();
    await dialog.getByLabel('Organization').selectOption({ label: 'Acme Journeys' });
    await dialog.getByLabel('Given name').fill('Joan');
    await dialog.getByLabel('Family name').fill('Clarke');
    await dialog.getByLabel('Email', { exact: true }).fill('joan@acme.example.com');
    await dialog.getByLabel('Username').fill('joan');
    await dialog.getByLabel(/Initial password/).fill('Joans-Initial-Passw0rd!');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'Joan Clarke', level: 1 }).waitFor();
    await section('Users');
    await page.getByRole('cell', { name: 'Joan Clarke' }).waitFor();
    // her login name, as the list shows it, is what the operator tells her
    const loginName = (await page
      .getByRole('row')
      .filter({ hasText: 'Joan Clarke' })
      .locator('td')
      .nth(1)
      .textContent())!;
    expect(loginName).toMatch(/^joan@/);

    await section('Authorizations');
    await page.getByRole('button', { name: 'New authorization' }).click();
    await page.locator('#authz-user-search').fill('joan');
    const joan = page.locator('#authz-user option', { hasText: 'joan' });
    await joan.waitFor({ state: 'attached' });
    await page.locator('#authz-user').selectOption((await joan.getAttribute('value'))!);
    await page.locator('#authz-project').selectOption({ label: 'Acme Shop' });
    await page.getByRole('checkbox', { name: /buyer/ }).check();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('cell', { name: 'buyer', exact: true }).waitFor();

    // the events page shows what the operator just did, newest first
    await section('Events');
    await page.locator('.events li').first().waitFor();
    const kinds = await page.locator('.events summary strong').allTextContents();
    for (const kind of ['Authorization added', 'Person added', 'Project role added', 'Organization added'])
      expect(kinds).toContain(kind);

    // The operator's new password holds, the generated one no longer does.
    const [admin] = await rows(server, `select password_change_required from users where username = 'admin'`);
    expect(admin.password_change_required).toBe(false);

    // Joan, at the relying party configured with what the operator copied: first her own password, then in.
    const config = await rp(server, clientId, clientSecret);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid profile urn:service:iam:org:project:role:buyer',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'journey',
    });
    const joans = await (await browser.newContext({ locale: 'en-US' })).newPage();
    let landed = '';
    await joans.route(`${new URL(REDIRECT).origin}/**`, (route) => {
      landed = route.request().url();
      return route.fulfill({ body: 'signed in' });
    });
    await joans.goto(url.toString());
    await signInAt(joans, loginName, 'Joans-Initial-Passw0rd!');
    await joans.getByLabel('New password').fill('Joans-Own-Passw0rd!');
    await joans.getByLabel('Repeat the password').fill('Joans-Own-Passw0rd!');
    await joans.getByRole('button', { name: 'Change password' }).click();
    await joans.getByText('signed in').waitFor();
    const tokens = await client.authorizationCodeGrant(config, new URL(landed), {
      pkceCodeVerifier: verifier,
      expectedState: 'journey',
    });
    const [user] = await rows(server, `select id from users where username = 'joan'`);
    expect(tokens.claims()!.sub).toBe(user.id);
    const info = await client.fetchUserInfo(config, tokens.access_token, user.id);
    expect(Object.keys(info['urn:service:iam:org:project:roles'] as object)).toEqual(['buyer']);

    // the operator's own account is one link away, signed in already
    await page.getByRole('banner').getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/account/');
    await ctx.close();
  });
});
