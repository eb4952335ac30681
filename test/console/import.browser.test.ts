import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrgAdministrator, openConsole, startConsole } from '../helpers/console';
import { rows } from '../helpers/rows';
import type { TestServer } from '../helpers/server';
import { FIXTURES } from '../migrate/run-cli';

const human = (userId: string, userName: string, email = `${userName}@example.com`) => ({
  userId,
  user: {
    userName,
    profile: { firstName: 'Imported', lastName: userName },
    email: { email, isEmailVerified: true },
  },
});

/** The console's import section: a v1 body in chunks with progress and the item errors; what it refuses. */
describe('console: import', () => {
  let server: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
  });
  afterAll(() => stop?.());
  const admin = () => ({ loginName: 'admin', password: server.adminPassword });

  it('imports a v1 body of 110 users in two requests; the one bad item is listed, the rest are in', async () => {
    const users = Array.from({ length: 110 }, (_, i) => human(`imp${i}`, `imported${i}`));
    users[105] = human('imp105', 'imported105', 'not-an-email');
    const body = { dataOrgs: { orgs: [{ orgId: 'imported-org', org: { name: 'Imported Org' }, humanUsers: users }] } };
    const page = await openConsole(browser, server, 'import', admin());
    const requests: string[] = [];
    page.on('request', (r) => r.url().endsWith('/admin/v1/import') && requests.push(r.url()));
    await page.getByLabel('Import file').setInputFiles({
      name: 'body.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(body)),
    });
    await page.getByText('Done: 109 imported, 1 failed.').waitFor();
    expect(await page.locator('progress').getAttribute('aria-valuenow')).toBe('100');
    expect(requests).toHaveLength(2);
    const row = page.getByRole('row').filter({ hasText: 'imp105' });
    expect(await row.locator('td').allTextContents()).toEqual([
      'human_user imp105',
      'Email',
      expect.stringContaining('Errors.User.Email.Invalid'),
    ]);
    const [{ n }] = await rows(server, `select count(*)::int as n from users where org_id = 'imported-org'`);
    expect(n).toBe(109);
    await page.context().close();
  });

  it('converts a Keycloak export in the browser and imports it; its users sign in with their passwords', async () => {
    const page = await openConsole(browser, server, 'import', admin());
    await page.getByLabel('Import file').setInputFiles(join(FIXTURES, 'kc24-users-0.json'));
    await page.getByText(/^Done: \d+ imported, 0 failed\.$/).waitFor();
    expect(await page.locator('progress').getAttribute('aria-valuenow')).toBe('100');
    // the users file names the realm "Test": the organization is named after it; the three service
    // accounts have no password and are left out, as the CLI does by default
    const users = await rows(server, `select username from users where org_id = 'test'`);
    expect(users.map((u) => u.username)).toEqual(['test']);
    const session = await server.fetch('/portcullis.session.v2.SessionService/CreateSession', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ checks: { user: { loginName: 'test' }, password: { password: '1234' } } }),
    });
    expect(session.status).toBe(200);
    await page.context().close();
  });

  it('a file of another kind sends nothing; a refused request stops the import, what came before stays', async () => {
    const page = await openConsole(browser, server, 'import', admin());
    const requests: string[] = [];
    page.on('request', (r) => r.url().endsWith('/admin/v1/import') && requests.push(r.url()));
    const input = page.getByLabel('Import file');
    await input.setInputFiles({ name: 'x.json', mimeType: 'application/json', buffer: Buffer.from('{"users":[]}') });
    await page.getByText('neither a v1 import body nor a Keycloak export').waitFor();
    await input.setInputFiles({ name: 'x.json', mimeType: 'application/json', buffer: Buffer.from('not json') });
    await page.getByText('This file is not JSON').waitFor();
    expect(requests).toEqual([]);

    const users = Array.from({ length: 250 }, (_, i) => human(`stop${i}`, `stopped${i}`));
    const body = { dataOrgs: { orgs: [{ orgId: 'stopped-org', org: { name: 'Stopped Org' }, humanUsers: users }] } };
    // the second request meets a refusal as the server words it (say, the role was taken away meanwhile)
    let sent = 0;
    await page.route('**/admin/v1/import', (route) =>
      ++sent === 2
        ? route.fulfill({ status: 403, body: '{"code":7,"message":"the import needs the IAM_OWNER role"}' })
        : route.continue(),
    );
    await input.setInputFiles({
      name: 'body.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(body)),
    });
    await page.getByRole('alert').getByText('403: the import needs the IAM_OWNER role').waitFor();
    expect(sent).toBe(2);
    expect(await page.locator('progress').getAttribute('aria-valuenow')).toBe('33');
    const [{ n }] = await rows(server, `select count(*)::int as n from users where org_id = 'stopped-org'`);
    expect(n).toBe(100);
    await page.context().close();
  });

  it('an organization administrator gets no import entry and no file to upload', async () => {
    const { login } = await addOrgAdministrator(server, 'No Import Org', 'ORG_OWNER');
    const page = await openConsole(browser, server, 'import', login);
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Import' }).count()).toBe(0);
    expect(await page.getByLabel('Import file').count()).toBe(0);
    await page.getByText('Only instance administrators may import.').waitFor();
    await page.context().close();
  });
});
