import { decodeProtectedHeader } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { WebKeyState } from '../../gen/portcullis/instance/v2/web_key_pb';
import { addOrgAdministrator, openConsole, startConsole } from '../helpers/console';
import { addRelyingParty, codeFlowTokens } from '../helpers/login-flow';
import type { TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** The console's instance section: settings with the server's messages, signing-key rotation, who sees it. */
describe('console: instance', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());
  const admin = () => ({ loginName: 'admin', password: server.adminPassword });

  it('changes a token lifetime and the lockout threshold; an out-of-range value is shown at its field', async () => {
    const page = await openConsole(browser, server, 'instance', admin());
    const lifetime = page.getByLabel('Access token lifetime (seconds)');
    await lifetime.fill('0');
    const form = page.locator('form[aria-labelledby="settings-title"]');
    await form.getByRole('button', { name: 'Save' }).click();
    const error = page.locator('#settings-accessTokenLifetimeSeconds-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^access_token_lifetime_seconds must be between/);

    await lifetime.fill('1800');
    await page.getByLabel('Wrong passwords before lockout (0: never)').fill('4');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByRole('status').waitFor();
    const { settings } = await server.client(InstanceService).getInstanceSettings({});
    expect(settings?.accessTokenLifetimeSeconds).toBe(1800);
    expect(settings?.lockoutMaxPasswordAttempts).toBe(4);
    await page.context().close();
  });

  it('creates a signing key and activates it (asked first): JWKS serves it, new ID tokens carry its kid', async () => {
    const config = await addRelyingParty(server);
    const user = await addUser(server);
    const page = await openConsole(browser, server, 'instance', admin());
    await page.getByRole('button', { name: 'New signing key' }).click();
    await page.getByRole('dialog').getByLabel('Algorithm').selectOption({ label: 'ES256' });
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    // the new key is listed as initial: published, not signing yet
    const fresh = page.getByRole('row').filter({ hasText: 'ES256' }).filter({ hasText: 'Initial' });
    await fresh.waitFor();
    const kid = (await fresh.locator('code').first().textContent())!;
    const row = page.getByRole('row').filter({ hasText: kid });
    const jwks = await (await fetch(`${server.url}/oauth/v2/keys`)).json();
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(kid);

    await row.getByRole('button', { name: 'Activate' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('New tokens are signed with it');
    await dialog.getByRole('button', { name: 'Activate' }).click();
    await row.getByText('Active').waitFor();
    const { webKeys } = await server.client(InstanceService).listWebKeys({});
    expect(webKeys.find((k) => k.id === kid)?.state).toBe(WebKeyState.ACTIVE);
    const { tokens } = await codeFlowTokens(server, config, user);
    expect(decodeProtectedHeader(tokens.id_token!)).toMatchObject({ kid, alg: 'ES256' });
    await page.context().close();
  });

  it('deleting the active key asks first and shows the server refusing it', async () => {
    const page = await openConsole(browser, server, 'instance', admin());
    const row = page.getByRole('row').filter({ hasText: 'Active (signs new tokens)' });
    const kid = (await row.locator('code').textContent())!;
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alert').filter({ hasText: 'the active key cannot be deleted' }).waitFor();
    const { webKeys } = await server.client(InstanceService).listWebKeys({});
    expect(webKeys.find((k) => k.id === kid)?.state).toBe(WebKeyState.ACTIVE);
    await page.context().close();
  });

  it('an organization administrator gets no instance entry, and the page shows the refusal', async () => {
    const { login } = await addOrgAdministrator(server, 'Not The Instance Org', 'ORG_OWNER');
    const page = await openConsole(browser, server, 'instance', login);
    const nav = page.getByRole('navigation');
    await nav.getByRole('link', { name: 'Users' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Instance' }).count()).toBe(0);
    await page.getByRole('alert').getByText('Your account may not see this.').waitFor();
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await page.context().close();
  });
});
