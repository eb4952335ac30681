import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureConsoleClient } from '../../src/console/system-client';
import { openConsole, signInAt, startConsole } from '../helpers/console';
import { rows } from '../helpers/rows';
import type { TestServer } from '../helpers/server';
import { totpCode } from '../helpers/totp';
import { addUser } from '../helpers/users';

/**
 * The account page of a plain user (no administrator role): password, authenticator app, passkey,
 * sessions. The page runs on the instance's domain (localhost), as WebAuthn needs a name, not an IP.
 */
describe('account page', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let origin: string;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
    const [{ domain }] = await rows(server, 'select domain from instances');
    origin = `http://${domain}:${server.port}`;
    server.app.config.externalUrl = origin;
    await ensureConsoleClient(server.app.deps, origin);
  });
  afterAll(() => stop?.());

  const open = (path: string, who: { username: string; password: string }) =>
    openConsole(browser, server, path, { loginName: who.username, password: who.password }, { app: 'account', origin });

  it('changes the password with the current one; then only the new one signs in', async () => {
    const user = await addUser(server);
    const page = await open('security', user);
    await page.getByLabel('Current password').fill('Wrong-Passw0rd!');
    await page.getByLabel('New password').fill('Brand-New-Passw0rd!');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('#password-current-error').waitFor();
    await page.getByLabel('Current password').fill(user.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password was changed.').waitFor();
    await page.context().close();

    const ctx = await browser.newContext({ locale: 'en-US' });
    const again = await ctx.newPage();
    await again.goto(`${origin}/ui/account/`);
    await signInAt(again, user.username, user.password);
    await again.getByRole('alert').waitFor();
    expect(new URL(again.url()).pathname).toMatch(/^\/ui\/login/);
    await again.getByLabel(/^Password$/).fill('Brand-New-Passw0rd!');
    await again.getByRole('button', { name: 'Sign in' }).click();
    await again.getByRole('heading', { name: 'Profile' }).waitFor();
    await ctx.close();
  });

  it('edits the profile (the server’s message at its field); sets up an authenticator app from its key', async () => {
    const user = await addUser(server);
    const page = await open('', user);
    await page.getByLabel('Given name').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await page.locator('#profile-givenName-error').textContent()).toContain('human.profile.given_name');
    await page.getByLabel('Given name').fill('Augusta');
    await page.getByLabel('Preferred language').selectOption('de');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const [me] = await rows(server, `select given_name, preferred_language from users where id = '${user.id}'`);
    expect(me).toEqual({ given_name: 'Augusta', preferred_language: 'de' });

    await page.getByRole('navigation').getByRole('link', { name: 'Password and security' }).click();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.getByRole('img', { name: 'QR code for the authenticator app' }).waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())!;
    await page.getByLabel('Code').fill(await totpCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('An authenticator app is set up.').waitFor();
    const factors = await rows(server, `select state from user_factors where user_id = '${user.id}' and type = 'totp'`);
    expect(factors).toEqual([{ state: 'ready' }]);
    await page.context().close();
  });

  it('reloaded after an authenticator app is set up, the page asks for its code, not the login name', async () => {
    const user = await addUser(server);
    const page = await open('security', user);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent())!;
    await page.getByLabel('Code').fill(await totpCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('An authenticator app is set up.').waitFor();

    // the session was signed in with the password only: the new factor is asked for, in that session
    await page.reload();
    await page.waitForURL(/\/ui\/login\/totp\?/);
    expect(await page.getByLabel(/^Login name$/).count()).toBe(0);
    await page.getByLabel(/^Code$/).fill(await totpCode(secret, 1));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Password and security', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/ui/account/security');
    await page.getByText('An authenticator app is set up.').waitFor();
    // and it was the one session all along
    const live = await rows(server, `select id from sessions where user_id = '${user.id}' and terminated_at is null`);
    expect(live).toHaveLength(1);
    await page.context().close();
  });

  it('registers a named passkey with a virtual authenticator, and removes it after confirming', async () => {
    const user = await addUser(server);
    const page = await open('security', user);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });
    await page.getByLabel('Name of the new passkey').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Work laptop' });
    await row.waitFor();
    const passkeys = () =>
      rows(server, `select name, state from user_factors where user_id = '${user.id}' and type = 'webauthn'`);
    expect(await passkeys()).toEqual([{ name: 'Work laptop', state: 'ready' }]);

    await row.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await row.waitFor({ state: 'detached' });
    expect(await passkeys()).toEqual([]);
    await page.context().close();
  });

  it('signs out another session of the user: it ends on the server and that browser loses its access', async () => {
    const user = await addUser(server);
    const other = await open('sessions', user);
    const page = await open('sessions', user);
    const sessions = () =>
      rows(server, `select id from sessions where user_id = '${user.id}' and terminated_at is null`);
    expect(await sessions()).toHaveLength(2);
    const mine = page.getByRole('row').filter({ hasText: 'This session' });
    const theirs = page
      .getByRole('row')
      .filter({ hasNotText: 'This session' })
      .filter({ has: page.getByRole('cell') });
    await mine.waitFor();
    // each session says where it came from: the browser, the address, the application
    expect(await mine.textContent()).toMatch(/Chrome \d+ on Linux/);
    await mine.getByRole('cell', { name: '127.0.0.1' }).waitFor();
    await mine.getByRole('cell', { name: 'Console', exact: true }).waitFor();
    await theirs.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out' }).click();
    await theirs.waitFor({ state: 'detached' });
    expect(await sessions()).toHaveLength(1);
    expect(await mine.count()).toBe(1);
    // the console client is the application this user authorized, once, from the session left
    await page.getByRole('navigation').getByRole('link', { name: 'Applications' }).click();
    await page.getByRole('cell', { name: 'Console', exact: true }).waitFor();

    // the other browser's next call with its token is refused
    await other.getByRole('navigation').getByRole('link', { name: 'Profile' }).click();
    await expectRefused(other);
    await other.context().close();
    await page.context().close();
  });
});

async function expectRefused(page: Page) {
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/Something went wrong/);
}
