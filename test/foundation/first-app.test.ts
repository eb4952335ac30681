import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OidcApplicationType,
  OidcAuthMethodType,
  OidcGrantType,
  OidcResponseType,
} from '../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { ProjectService } from '../../gen/portcullis/project/v2/project_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { Browser } from '../helpers/browser';
import { freePort, ROOT, waitFor } from '../helpers/process';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The README's "Your first app in five minutes", done as a newcomer does it: a project and a web
 * application with the console's defaults for that kind (code flow, client secret), made through the API;
 * then docs/examples/first-app.mjs — the very code the README quotes — run as its own process with the
 * client id and secret, and a person signing in through it in a browser.
 */
const EXAMPLE = path.join(ROOT, 'docs/examples/first-app.mjs');

describe("the README's first app", () => {
  let server: TestServer;
  let app: ChildProcess | undefined;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    app?.kill();
    await server?.stop();
  });

  it('is quoted in the README exactly as docs/examples/first-app.mjs holds it', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const jsBlocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
    expect(jsBlocks).toContain(fs.readFileSync(EXAMPLE, 'utf8'));
  });

  it('signs a person in with the authorization code flow against a real server', async () => {
    const { instance } = await server.client(InstanceService).getInstance({});
    const organizationId = instance!.defaultOrganizationId;
    const { projectId } = await server.client(ProjectService).createProject({ organizationId, name: 'My app' });
    const appUrl = `http://127.0.0.1:${await freePort()}`;
    const created = await server.client(ApplicationService).createApplication({
      projectId,
      name: 'My app',
      configuration: {
        case: 'oidc',
        value: {
          applicationType: OidcApplicationType.WEB,
          authMethodType: OidcAuthMethodType.BASIC,
          grantTypes: [OidcGrantType.AUTHORIZATION_CODE, OidcGrantType.REFRESH_TOKEN],
          responseTypes: [OidcResponseType.CODE],
          redirectUris: [`${appUrl}/callback`],
        },
      },
    });
    if (created.configuration.case !== 'oidc') throw new Error('not an OIDC application');
    const { clientId, clientSecret } = created.configuration.value;
    expect(created.configuration.value.complianceProblems).toEqual([]);

    const password = 'Lighthouse-Keeper-1842';
    await server.client(UserService).createUser({
      organizationId,
      username: 'ada',
      userType: {
        case: 'human',
        value: {
          profile: { givenName: 'Ada', familyName: 'Lovelace' },
          email: { email: 'ada@example.com', verification: { case: 'isVerified', value: true } },
          passwordType: { case: 'password', value: { password, changeRequired: false } },
        },
      },
    });

    let output = '';
    app = spawn(process.execPath, [EXAMPLE], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        ISSUER: server.url,
        CLIENT_ID: clientId,
        CLIENT_SECRET: clientSecret,
        APP_URL: appUrl,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    app.stdout!.on('data', (d) => (output += d));
    app.stderr!.on('data', (d) => (output += d));
    await waitFor(() => output.includes(`Open ${appUrl} to sign in`), 30_000, `the app to listen: ${output}`);

    // the browser opens the app, which sends it to the issuer's authorization endpoint
    const start = await fetch(appUrl, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const authorize = start.headers.get('location')!;
    expect(authorize.startsWith(`${server.url}/oauth/v2/authorize?`)).toBe(true);

    // the hosted login: login name, then password; then back to the app with a code
    const browser = new Browser(server.url);
    let page = await browser.go(authorize);
    expect(page.url).toContain('/ui/login/login');
    page = await browser.submit(page, '/ui/login/login', { loginName: 'ada' });
    expect(page.url).toContain('/ui/login/password');
    page = await browser.submit(page, '/ui/login/password', { password });
    expect(page.url.startsWith(`${appUrl}/callback?`)).toBe(true);

    const done = await fetch(page.url);
    const text = await done.text();
    expect(done.status, text).toBe(200);
    expect(text).toMatch(/^Signed in as ada@\S+\n$/);
  }, 60_000);
});
