import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityProviderService } from '../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { openConsole, startConsole } from '../helpers/console';
import { rows } from '../helpers/rows';
import type { TestServer } from '../helpers/server';

/** The identity providers section with the kinds beyond generic OpenID Connect (that one: access test). */
describe('console: identity provider kinds', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());

  const admin = () => ({ loginName: 'admin', password: server.adminPassword });
  const stored = async (name: string) => {
    const { result } = await server.client(IdentityProviderService).listIdentityProviders({});
    return result.find((p) => p.name === name)!;
  };

  it('creates a GitHub provider, edits its scopes without its secret shown, the secret kept', async () => {
    const page = await openConsole(browser, server, 'identity-providers', admin());
    await page.getByRole('button', { name: 'New identity provider' }).click();
    await page.getByLabel('Kind').selectOption({ label: 'GitHub' });
    await page.getByLabel('Name', { exact: true }).fill('Octo');
    await page.getByLabel('Client ID').fill('gh-client');
    await page.getByLabel('Client secret').fill('gh-secret');
    await page.getByLabel('Scopes, separated by spaces').fill('read:user user:email');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('dialog').getByText('/idps/callback').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).last().click();
    const row = page.getByRole('row', { name: /Octo/ });
    await row.getByRole('cell', { name: 'GitHub (OAuth)' }).waitFor();
    const created = await stored('Octo');
    expect(created.config.case).toBe('github');
    expect(created.config.value).toMatchObject({
      clientId: 'gh-client',
      clientSecret: '',
      scopes: ['read:user', 'user:email'],
    });

    await row.getByRole('button', { name: 'Edit' }).click();
    await expect(page.getByLabel('Kind').count()).resolves.toBe(0);
    expect(await page.getByLabel('Client ID').inputValue()).toBe('gh-client');
    expect(await page.getByLabel(/^Client secret/).inputValue()).toBe('');
    await page.getByLabel('Scopes, separated by spaces').fill('read:user');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Edit “Octo”' }).waitFor({ state: 'detached' });
    const edited = await stored('Octo');
    expect(edited.config.value).toMatchObject({ clientId: 'gh-client', scopes: ['read:user'] });
    expect(
      await rows(server, `select secrets is not null as kept from identity_providers where id = '${created.id}'`),
    ).toEqual([{ kept: true }]);
    await page.context().close();
  });

  it('creates an LDAP provider with the values typed, shows the server message, edits its base DN', async () => {
    const page = await openConsole(browser, server, 'identity-providers', admin());
    await page.getByRole('button', { name: 'New identity provider' }).click();
    await page.getByLabel('Kind').selectOption({ label: 'LDAP' });
    await page.getByLabel('Name', { exact: true }).fill('Directory');
    await page.getByLabel(/^Servers/).fill('ldaps://ldap.example.org:636 ldap://ldap2.example.org');
    await page.getByLabel('use StartTLS').check();
    await page.getByLabel('Base DN').fill('ou=people,dc=example,dc=org');
    await page.getByLabel('Bind DN').fill('cn=search,dc=example,dc=org');
    await page.getByLabel('Bind password').fill('bind-secret');
    await page.getByLabel(/^User object classes/).fill('inetOrgPerson');
    await page.getByLabel(/^Attributes matched/).fill('uid mail');
    // the server's check is shown next to the field it names
    await page.getByLabel('Timeout in seconds').fill('99');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'timeout_seconds' }).waitFor();
    await page.getByLabel('Timeout in seconds').fill('5');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('dialog').getByText('The identity provider is created.').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).last().click();
    const row = page.getByRole('row', { name: /Directory/ });
    await row.getByRole('cell', { name: 'LDAP (LDAP)' }).waitFor();
    const created = await stored('Directory');
    expect(created.config.case).toBe('ldap');
    expect(created.config.value).toMatchObject({
      servers: ['ldaps://ldap.example.org:636', 'ldap://ldap2.example.org'],
      startTls: true,
      baseDn: 'ou=people,dc=example,dc=org',
      bindDn: 'cn=search,dc=example,dc=org',
      bindPassword: '',
      userObjectClasses: ['inetOrgPerson'],
      userFilters: ['uid', 'mail'],
      timeoutSeconds: 5,
    });

    await row.getByRole('button', { name: 'Edit' }).click();
    expect(await page.getByLabel(/^Bind password/).inputValue()).toBe('');
    await page.getByLabel('Base DN').fill('ou=staff,dc=example,dc=org');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Edit “Directory”' }).waitFor({ state: 'detached' });
    expect((await stored('Directory')).config.value).toMatchObject({
      baseDn: 'ou=staff,dc=example,dc=org',
      servers: ['ldaps://ldap.example.org:636', 'ldap://ldap2.example.org'],
      timeoutSeconds: 5,
    });
    expect(
      await rows(server, `select secrets is not null as kept from identity_providers where id = '${created.id}'`),
    ).toEqual([{ kept: true }]);
    await page.context().close();
  });
});
