import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { addRelyingParty } from '../helpers/login-flow';
import { addOrg } from '../helpers/orgs';
import { addUser } from '../helpers/users';

describe('self-registration', () => {
  let server: TestServer;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server, { basicAuth: true });
  });
  afterAll(() => server?.stop());

  const registerPage = (browser: Browser, orgId?: string) =>
    browser.go(
      client
        .buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT,
          scope: orgId ? `openid urn:service:iam:org:id:${orgId}` : 'openid',
          prompt: 'create',
        })
        .toString(),
    );
  const register = (browser: Browser, page: { html: string }, email: string, username?: string) =>
    browser.submit(page, '/ui/login/register', {
      givenName: 'New',
      familyName: 'Comer',
      email,
      ...(username ? { username } : {}),
      password: 'Regist-Passw0rd!',
      passwordConfirm: 'Regist-Passw0rd!',
    });

  it('an anonymous visitor cannot join an org that does not allow it by naming it in the org scope', async () => {
    const closed = await addOrg(server, 'Closed Org');
    const browser = new Browser(server.url);
    const page = await registerPage(browser, closed.id);
    expect(page.res.status).toBe(403);
    expect(page.html).not.toContain('action="/ui/login/register"');
    // posting the form anyway is refused too
    const open = await registerPage(new Browser(server.url));
    const forged = open.html.replace(
      /name="authRequest" value="[^"]*"/,
      `name="authRequest" value="${new URL(page.url).searchParams.get('authRequest')}"`,
    );
    const res = await register(browser, { html: forged }, 'intruder@example.com');
    expect(res.res.status).toBeGreaterThanOrEqual(400);
    const { organizations } = await server.client(OrganizationService).listOrganizations({});
    expect(organizations.find((o) => o.id === closed.id)).toBeDefined();
  });

  it('an org that allows registration gets new users; the instance setting closes the default org', async () => {
    const opened = await addOrg(server, 'Open Org');
    await server
      .client(OrganizationService)
      .setOrganizationLoginPolicy({ organizationId: opened.id, allowRegistration: true });
    const browser = new Browser(server.url);
    const page = await registerPage(browser, opened.id);
    expect(page.res.status).toBe(200);
    const done = await register(browser, page, 'joiner@example.com');
    expect(done.url).toContain('/ui/login/verify-email');

    await server.client(InstanceService).updateInstanceSettings({ registrationAllowed: false });
    const closedDefault = await registerPage(new Browser(server.url));
    expect(closedDefault.res.status).toBe(403);
    await server.client(InstanceService).updateInstanceSettings({ registrationAllowed: true });
  });

  it('registration does not tell whether a username or address is taken', async () => {
    const existing = await addUser(server);
    const browser = new Browser(server.url);
    const taken = await register(browser, await registerPage(browser), 'someone-new@example.com', existing.username);
    for (const r of [taken]) {
      expect(r.res.status).toBe(400);
      expect(r.html).not.toMatch(/is already taken|already exists/i);
      expect(r.html).toContain('could not be created');
    }
  });
});
