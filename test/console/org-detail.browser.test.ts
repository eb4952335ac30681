import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SettingsService } from '../../gen/portcullis/settings/v2/settings_service_pb';
import { verifyDomain } from '../../src/domain/org/domain-validation';
import { systemCtx } from '../helpers/context';
import { addOrg } from '../helpers/orgs';
import { rows } from '../helpers/rows';
import { addOrgAdministrator, openConsole, startConsole } from '../helpers/console';
import type { TestServer } from '../helpers/server';

/** The organization detail page: domains and metadata, the login policy overrides, what a user manager sees. */
describe('console: organization detail', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  const admin = () => ({ loginName: 'admin', password: server.adminPassword });
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());

  it('adds a domain, shows its validation token, makes it primary and sets metadata', async () => {
    const org = await addOrg(server, 'Detail Org');
    const page = await openConsole(browser, server, 'organizations', admin());
    await page.getByRole('link', { name: 'Detail Org' }).click();
    await page.getByRole('heading', { name: 'Detail Org', level: 1 }).waitFor();

    await page.getByLabel('Domain', { exact: true }).fill('detail.example.com');
    await page.getByRole('form', { name: 'New domain' }).getByRole('button', { name: 'Create' }).click();
    const row = page.getByRole('row').filter({ hasText: 'detail.example.com' });
    await row.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('button', { name: 'Generate a token' }).click();
    const validation = page.getByRole('region', { name: 'Verify detail.example.com' });
    const token = (await validation.locator('dd code').nth(1).textContent()) ?? '';
    expect(await validation.locator('dd code').first().textContent()).toBe('_portcullis-challenge.detail.example.com');
    const [pending] = await rows(
      server,
      `select validation_token from org_domains where domain = 'detail.example.com'`,
    );
    expect(pending.validation_token).toBe(token);
    // no record holds it: the server's answer says what it looked for
    await page
      .getByRole('region', { name: 'Verify detail.example.com' })
      .getByRole('button', { name: 'Verify' })
      .click();
    const answer = page.getByRole('alert').filter({ hasText: 'no TXT record found' });
    expect(await answer.textContent()).toContain('_portcullis-challenge.detail.example.com');
    // unverified: it cannot be primary, so the page offers no such button
    expect(await row.getByRole('button', { name: 'Set primary' }).count()).toBe(0);
    // the TXT record appears: the domain is verified, and can be made primary
    await verifyDomain(systemCtx(server), { orgId: org.id, domain: 'detail.example.com' }, async () => [token]);
    await page.reload();
    await row.getByRole('button', { name: 'Set primary' }).click();
    await expect
      .poll(async () => (await rows(server, `select primary_domain from orgs where id = '${org.id}'`))[0])
      .toEqual({ primary_domain: 'detail.example.com' });
    await row.getByRole('button', { name: 'Set primary' }).waitFor({ state: 'detached' });
    const domains = await rows(server, `select domain, is_verified from org_domains where org_id = '${org.id}'`);
    expect(domains).toContainEqual({ domain: 'detail.example.com', is_verified: true });

    await page.getByLabel('Key', { exact: true }).fill('region');
    await page.getByLabel('Value', { exact: true }).fill('eu-central');
    await page.getByRole('button', { name: 'Set metadata' }).click();
    await page.getByRole('cell', { name: 'eu-central' }).waitFor();
    expect(await rows(server, `select key from org_metadata where org_id = '${org.id}'`)).toEqual([{ key: 'region' }]);
    await page.context().close();
  });

  it('overrides the registration and login policies and resets them to the instance default', async () => {
    const org = await addOrg(server, 'Policy Org');
    const page = await openConsole(browser, server, `organizations/${org.id}`, admin());
    const names = page.getByRole('form', { name: 'Registration and login names' });
    await page.getByLabel('Visitors may register').selectOption('yes');
    await names.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => (await rows(server, `select allow_registration from orgs where id = '${org.id}'`))[0])
      .toEqual({ allow_registration: true });
    await names.getByRole('button', { name: 'Reset to the instance default' }).click();
    await names.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(async () => (await rows(server, `select allow_registration from orgs where id = '${org.id}'`))[0])
      .toEqual({ allow_registration: null });

    // its own login policy (second factor required), then the instance's again
    const settings = server.client(SettingsService);
    const policy = page.getByRole('form', { name: 'Login policy' });
    await policy.getByLabel('Second factor required').check();
    await policy.getByRole('button', { name: 'Save' }).click();
    await page.getByText('The organization has its own login policy.').waitFor();
    const own = await settings.getLoginSettings({ organizationId: org.id });
    expect({ inherited: own.inherited, forceMfa: own.settings?.forceMfa }).toEqual({
      inherited: false,
      forceMfa: true,
    });
    await page.getByRole('button', { name: 'Reset to the instance default' }).nth(1).click();
    await page.getByText('The organization follows the instance’s login policy.').waitFor();
    expect((await settings.getLoginSettings({ organizationId: org.id })).inherited).toBe(true);
    await page.context().close();
  });

  it("an organization's user manager sees it read-only", async () => {
    const { org, login } = await addOrgAdministrator(server, 'Read Only Org', 'ORG_USER_MANAGER');
    const page = await openConsole(browser, server, `organizations/${org.id}`, login);
    await page.getByRole('cell', { name: org.primaryDomain }).waitFor();
    expect(await page.getByRole('form', { name: 'New domain' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Set metadata' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Rename' }).count()).toBe(0);
    expect(await page.getByLabel('Visitors may register').isDisabled()).toBe(true);
    await page.context().close();
  });
});
