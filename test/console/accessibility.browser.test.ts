import { readFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationService } from '../../gen/portcullis/authorization/v2/authorization_service_pb';
import { IdentityProviderService } from '../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../gen/portcullis/project/v2/project_service_pb';
import { openConsole, startConsole } from '../helpers/console';
import { rows } from '../helpers/rows';
import type { TestServer } from '../helpers/server';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** `npm run screenshots` sets this: each section's page is written there at 1280×800. */
const SHOTS = process.env.PORTCULLIS_SCREENSHOTS_DIR;
/** The walks over every section grow with the sections (some twenty pages, in two themes or three widths). */
const SECTION_WALK_MS = 180_000;

/** Every section of the console: no serious accessibility violation, no layout break, both themes. */
describe('console: accessibility and layout', { timeout: SECTION_WALK_MS }, () => {
  let server: TestServer;
  let browser: Browser;
  let projectId: string;
  let applicationId: string;
  let orgId: string;
  let machineId: string;
  let humanId: string;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ server, browser, stop } = await startConsole());
    const res = await server.fetch('/portcullis.project.v2.ProjectService/CreateProject', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ organizationId: await defaultOrg(), name: 'Shop' }),
    });
    projectId = (await res.json()).projectId;
    // a key-based client with a compliance problem: the page shows its keys and its problem too
    const app = await server.fetch('/portcullis.application.v2.ApplicationService/CreateApplication', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        projectId,
        name: 'Shop web',
        oidc: { redirectUris: ['http://shop.example.com/cb'], authMethodType: 'OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' },
      }),
    });
    applicationId = (await app.json()).applicationId;
    // a row in each access list: a role given to the admin, a grant, an identity provider
    const projects = server.client(ProjectService);
    await projects.addProjectRole({ projectId, roleKey: 'clerk', displayName: 'Clerk' });
    const partner = await server.client(OrganizationService).createOrganization({ name: 'Partner' });
    // one more organization, to which the project may still be granted
    await server.client(OrganizationService).createOrganization({ name: 'Supplier' });
    await projects.createProjectGrant({
      projectId,
      grantedOrganizationId: partner.organizationId,
      roleKeys: ['clerk'],
    });
    const [admin] = (await rows(server, `select id from users where username = 'admin'`)) as { id: string }[];
    await server.client(AuthorizationService).createAuthorization({ userId: admin.id, projectId, roleKeys: ['clerk'] });
    await server.client(IdentityProviderService).createIdentityProvider({
      name: 'Partner SSO',
      config: {
        case: 'genericOidc',
        value: { issuer: 'https://sso.partner.example', clientId: 'c', clientSecret: 's' },
      },
    });
    orgId = await defaultOrg();
    const machine = await server.fetch('/portcullis.user.v2.UserService/CreateUser', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ organizationId: orgId, username: 'ci-robot', machine: { name: 'CI robot' } }),
    });
    machineId = (await machine.json()).id;
    const human = await server.fetch('/portcullis.user.v2.UserService/CreateUser', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        organizationId: orgId,
        username: 'marie',
        human: { profile: { givenName: 'Marie', familyName: 'Curie' }, email: { email: 'marie@example.com' } },
      }),
    });
    humanId = (await human.json()).id;
    expect([machineId, humanId].every(Boolean)).toBe(true);
  });
  afterAll(() => stop?.());

  async function defaultOrg(): Promise<string> {
    const res = await server.fetch('/portcullis.instance.v2.InstanceService/GetInstance', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    return (await res.json()).instance.defaultOrganizationId;
  }

  const admin = () => ({ loginName: 'admin', password: server.adminPassword });

  const sections = () => [
    { name: 'overview', path: '' },
    { name: 'organizations', path: 'organizations' },
    { name: 'users', path: 'users' },
    { name: 'projects', path: 'projects' },
    { name: 'project', path: `projects/${projectId}` },
    { name: 'application', path: `projects/${projectId}/applications/${applicationId}` },
    { name: 'application-settings', path: `projects/${projectId}/applications/${applicationId}/settings` },
    { name: 'application-keys', path: `projects/${projectId}/applications/${applicationId}/keys` },
    { name: 'authorizations', path: 'authorizations' },
    { name: 'administrators', path: 'administrators' },
    { name: 'identity-providers', path: 'identity-providers' },
    { name: 'events', path: 'events' },
    // every user's account page, same bundle
    { name: 'account-profile', path: '', app: 'account' },
    { name: 'account-security', path: 'security', app: 'account' },
    { name: 'account-linked-accounts', path: 'linked-accounts', app: 'account' },
    { name: 'account-sessions', path: 'sessions', app: 'account' },
    { name: 'account-applications', path: 'applications', app: 'account' },
    { name: 'instance', path: 'instance' },
    { name: 'import', path: 'import' },
    { name: 'user', path: `users/${humanId}` },
    { name: 'machine-user', path: `users/${machineId}` },
    { name: 'organization', path: `organizations/${orgId}` },
  ];

  async function open(page: Page, s: { path: string; app?: string }) {
    const app = `/ui/${s.app ?? 'console'}`;
    if (new URL(page.url()).pathname.startsWith(app)) {
      // within the app as a click on a link does it (History API): no reload, no new sign-in
      await page.evaluate((to) => {
        history.pushState(null, '', to);
        dispatchEvent(new PopStateEvent('popstate'));
        // React renders the new section in a task of its own: two frames later it is on screen
        return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      }, `${app}/${s.path}`);
    } else {
      await page.goto(`${server.url}${app}/${s.path}`);
    }
    await page.locator('main h1').waitFor();
    await page.waitForFunction(() => !document.querySelector('[aria-busy="true"], [role="status"].status'));
  }

  /** axe-core's serious and critical findings on the page as it is. */
  async function seriousViolations(page: Page): Promise<string[]> {
    // evaluate() runs outside the page's CSP, which (rightly) allows no injected script
    await page.evaluate(AXE);
    return page.evaluate(async () => {
      const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
      return result.violations
        .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
        .map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
    });
  }

  // every section twice (light and dark): longer than a test's default timeout as the sections grow
  it('axe-core finds no serious or critical violation on any section (light and dark)', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await openConsole(browser, server, '', admin(), { width: 1280, colorScheme });
      for (const s of sections()) {
        await open(page, s);
        expect(await seriousViolations(page), `${s.name} (${colorScheme})`).toEqual([]);
        if (SHOTS && colorScheme === 'light') {
          mkdirSync(SHOTS, { recursive: true });
          await page.screenshot({ path: path.join(SHOTS, `${s.name}.png`) });
        }
      }
      await page.context().close();
    }
  });

  /** The create dialogs, each opened from its page by its button. */
  const dialogs = () => [
    { name: 'new-organization', path: 'organizations', button: 'New organization' },
    { name: 'new-user', path: 'users', button: 'New user' },
    { name: 'new-project', path: 'projects', button: 'New project' },
    { name: 'new-role', path: `projects/${projectId}`, button: 'New role' },
    { name: 'new-grant', path: `projects/${projectId}`, button: 'Grant to an organization' },
    { name: 'new-application', path: `projects/${projectId}`, button: 'New application' },
    { name: 'new-administrator', path: 'administrators', button: 'New administrator' },
    { name: 'new-authorization', path: 'authorizations', button: 'New authorization' },
    { name: 'new-identity-provider', path: 'identity-providers', button: 'New identity provider' },
    { name: 'new-signing-key', path: 'instance', button: 'New signing key' },
  ];

  it('axe-core finds no serious or critical violation in any create dialog (light and dark)', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await openConsole(browser, server, '', admin(), { width: 1280, colorScheme });
      for (const d of dialogs()) {
        await open(page, { path: d.path });
        await page.getByRole('button', { name: d.button, exact: true }).click();
        const dialog = page.getByRole('dialog', { name: d.button });
        await dialog.waitFor();
        expect(await seriousViolations(page), `${d.name} (${colorScheme})`).toEqual([]);
        if (SHOTS && colorScheme === 'light' && ['new-user', 'new-application'].includes(d.name)) {
          mkdirSync(SHOTS, { recursive: true });
          await page.screenshot({ path: path.join(SHOTS, `${d.name}.png`) });
        }
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
      }
      await page.context().close();
    }
  });

  it('no section scrolls sideways from 360 px to 1920 px; the navigation stays reachable', async () => {
    for (const width of [360, 768, 1920]) {
      const page = await openConsole(browser, server, '', admin(), { width });
      for (const s of sections()) {
        await open(page, s);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${s.name} at ${width}px`).toBeLessThanOrEqual(0);
        const first = s.app === 'account' ? 'Profile' : 'Users';
        await expect(page.getByRole('navigation').getByRole('link', { name: first }).isVisible()).resolves.toBe(true);
      }
      await page.context().close();
    }
  });

  it('the keyboard reaches the skip link first and it moves focus to the page', async () => {
    const page = await openConsole(browser, server, '', admin());
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('href'));
    expect(focused).toBe('#main');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.context().close();
  });
});
