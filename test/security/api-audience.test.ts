import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Code } from '@connectrpc/connect';
import { and, eq, sql } from 'drizzle-orm';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate';
import { applications, events, orgs, projects } from '../../src/db/schema/index';
import { updateInstanceSettings } from '../../src/domain/instance/update-settings';
import { addApiApp, addOidcApp, addProject, markApiClient, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { answerInBrowser, poll, startDevice } from '../helpers/device-flow';
import { basic, postFormJson } from '../helpers/forms';
import { codeFlowTokens, rp } from '../helpers/login-flow';
import { addMachineWithToken } from '../helpers/machines';
import { addOrg } from '../helpers/orgs';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

const API_SCOPE = 'urn:service:iam:org:project:id:api:aud';
const API_AUDIENCE = 'urn:service:iam:api';

/** The Connect code a call failed with; 'ok' when it succeeded. */
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok' as const,
    (e: { code: Code }) => e.code,
  );

/**
 * An instance owner signs in to an application and asks for the API audience scope: only an API
 * client (the console, or an application an instance owner marked with oidc.api_access) gets a token
 * the API accepts. Every other client's token, however it was registered, is refused by the API.
 */
describe('the API audience goes only to API clients', () => {
  let server: TestServer;
  let admin: { username: string; password: string };
  let docs: Server;
  let docsBase: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = { username: 'admin', password: server.adminPassword };
    docs = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          client_id: `${docsBase}${req.url}`,
          client_name: 'Agent from a document',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
    docsBase = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => docs?.close(r));
    await server?.stop();
  });

  /** What the review did with the client's token: make another user an instance owner, read the settings. */
  async function expectRefusedByApi(accessToken: string) {
    const victim = await addUser(server);
    const promote = server.client(AdministratorService, { token: accessToken }).createAdministrator({
      userId: victim.id,
      resource: { resource: { case: 'instance', value: true } },
      roles: ['IAM_OWNER'],
    });
    expect(await codeOf(promote)).toBe(Code.Unauthenticated);
    const read = server.client(InstanceService, { token: accessToken }).getInstanceSettings({});
    expect(await codeOf(read)).toBe(Code.Unauthenticated);
    const held = await server.client(AdministratorService).listAdministrators({ userId: victim.id });
    expect(held.administrators).toHaveLength(0);
  }

  /** The token as an API application of the same project sees it at introspection. */
  async function introspect(projectId: string, accessToken: string) {
    const introspector = await addApiApp(server, projectId);
    const r = await postFormJson(
      server,
      '/oauth/v2/introspect',
      { token: accessToken },
      { authorization: basic(introspector.clientId, introspector.clientSecret) },
    );
    expect(r.body.active, JSON.stringify(r.body)).toBe(true);
    return r.body as { aud: string[]; scope: string };
  }

  async function expectNoApiAudience(projectId: string, tokens: { access_token: string; scope?: string }) {
    // the scope is dropped as an unknown scope is: the response says what was granted
    expect(tokens.scope ?? '').not.toContain(API_SCOPE);
    const seen = await introspect(projectId, tokens.access_token);
    expect(seen.aud).not.toContain(API_AUDIENCE);
    expect(seen.scope).not.toContain(API_SCOPE);
  }

  it("(a) a tenant's relying party gets no API token until an instance owner marks it an API client", async () => {
    const project = await addProject(server);
    const app = await addOidcApp(server, project);
    const config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    const { tokens } = await codeFlowTokens(server, config, admin, { scope: `openid ${API_SCOPE}` });
    await expectNoApiAudience(project, tokens);
    await expectRefusedByApi(tokens.access_token);
    // the ID token does not name the API either
    expect(tokens.claims()?.aud).not.toContain(API_AUDIENCE);

    await markApiClient(server, app.applicationId);
    const marked = await codeFlowTokens(server, config, admin, { scope: `openid ${API_SCOPE}` });
    expect((await introspect(project, marked.tokens.access_token)).aud).toContain(API_AUDIENCE);
    const settings = server.client(InstanceService, { token: marked.tokens.access_token });
    await settings.getInstanceSettings({});
    // the token from before the marking stays refused: it never carried the API audience
    await expectRefusedByApi(tokens.access_token);

    // withdrawn: the marked client's existing token no longer reaches the API
    await markApiClient(server, app.applicationId, false);
    await expect.poll(() => codeOf(settings.getInstanceSettings({})), { timeout: 5_000 }).toBe(Code.Unauthenticated);
  });

  it('(b) an anonymously self-registered client never gets the API audience', async () => {
    const project = await addProject(server);
    await updateInstanceSettings(systemCtx(server), {
      dynamicRegistration: 'OPEN',
      dynamicRegistrationProjectId: project,
      dynamicRegistrationGrantTypes: ['authorization_code', 'refresh_token'],
    });
    // registration metadata cannot ask to be an API client: unknown metadata is ignored
    const config = await client.dynamicClientRegistration(
      new URL(server.url),
      {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        scope: `openid ${API_SCOPE}`,
        api_access: true,
      },
      client.None(),
      { execute: [client.allowInsecureRequests] },
    );
    const { tokens } = await codeFlowTokens(server, config, admin, { scope: `openid offline_access ${API_SCOPE}` });
    await expectNoApiAudience(project, tokens);
    await expectRefusedByApi(tokens.access_token);
    // the refreshed token is no better
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    await expectRefusedByApi(refreshed.access_token);
  });

  it('(c) a client ID metadata document client never gets the API audience', async () => {
    const project = await addProject(server);
    await updateInstanceSettings(systemCtx(server), {
      clientIdMetadataDocuments: true,
      clientIdMetadataDocumentsProjectId: project,
    });
    const config = await rp(server, `${docsBase}/agent`, { token_endpoint_auth_method: 'none' }, client.None());
    const { tokens } = await codeFlowTokens(server, config, admin, { scope: `openid ${API_SCOPE}` });
    await expectNoApiAudience(project, tokens);
    await expectRefusedByApi(tokens.access_token);
  });

  it('(d) a device flow client never gets the API audience', async () => {
    const project = await addProject(server);
    const device = await addOidcApp(server, project, {
      applicationType: 'NATIVE',
      authMethodType: 'NONE',
      responseTypes: ['CODE'],
      grantTypes: ['AUTHORIZATION_CODE', 'DEVICE_CODE'],
    });
    const started = await startDevice(server, device.clientId, `openid ${API_SCOPE}`);
    expect(started.status).toBe(200);
    await answerInBrowser(new Browser(server.url), started.body.user_code, admin, 'allow');
    const polled = await poll(server, device.clientId, started.body.device_code);
    expect(polled.status, JSON.stringify(polled.body)).toBe(200);
    await expectNoApiAudience(project, polled.body as { access_token: string; scope: string });
    await expectRefusedByApi(polled.body.access_token);
  });

  it("a sibling application cannot exchange an API client's token for one that reaches the API", async () => {
    const project = await addProject(server);
    const apiClient = await addOidcApp(server, project);
    await markApiClient(server, apiClient.applicationId);
    const sibling = await addOidcApp(server, project, { grantTypes: ['AUTHORIZATION_CODE', 'TOKEN_EXCHANGE'] });
    const config = await rp(
      server,
      apiClient.clientId,
      apiClient.clientSecret,
      client.ClientSecretBasic(apiClient.clientSecret!),
    );
    const { tokens } = await codeFlowTokens(server, config, admin, { scope: `openid ${API_SCOPE}` });
    const exchange = (extra: Record<string, string>) =>
      postFormJson(
        server,
        '/oauth/v2/token',
        {
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token: tokens.access_token,
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          ...extra,
        },
        { authorization: basic(sibling.clientId, sibling.clientSecret!) },
      );
    const plain = await exchange({});
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    await expectNoApiAudience(project, plain.body as { access_token: string; scope: string });
    await expectRefusedByApi(plain.body.access_token);
    // asking for the API by name is answered as for an audience or a scope the tokens do not hold
    expect((await exchange({ audience: API_AUDIENCE })).body.error).toBe('invalid_target');
    expect((await exchange({ scope: `openid ${API_SCOPE}` })).body.error).toBe('invalid_scope');
  });

  it('the console is an API client: its sign-in token reaches the API', async () => {
    const apps = server.client(ApplicationService);
    const { application } = await apps.getApplication({ applicationId: 'portcullis-console' });
    const consoleApp = application!.configuration;
    expect(consoleApp.case).toBe('oidc');
    if (consoleApp.case !== 'oidc') return;
    expect(consoleApp.value.apiAccess).toBe(true);
    const verifier = client.randomPKCECodeVerifier();
    const redirectUri = consoleApp.value.redirectUris[0];
    const browser = new Browser(server.url);
    const authorize = `/oauth/v2/authorize?${new URLSearchParams({
      client_id: consoleApp.value.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: `openid ${API_SCOPE}`,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })}`;
    let page = await browser.go(authorize);
    page = await browser.submit(page, '/ui/login/login', { loginName: admin.username });
    page = await browser.submit(page, '/ui/login/password', { password: admin.password });
    const code = new URL(page.url).searchParams.get('code');
    expect(code, page.url).toBeTruthy();
    const token = await postFormJson(server, '/oauth/v2/token', {
      grant_type: 'authorization_code',
      client_id: consoleApp.value.clientId,
      code: code!,
      code_verifier: verifier,
      redirect_uri: redirectUri,
    });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.scope).toContain(API_SCOPE);
    await server.client(InstanceService, { token: token.body.access_token }).getInstanceSettings({});
  });
});

describe('oidc.api_access is the instance administrators’ setting', () => {
  let server: TestServer;
  let orgOwner: { userId: string; token: string };
  let project: string;

  beforeAll(async () => {
    server = await startTestServer();
    const org = await addOrg(server, 'tenant-api-access');
    orgOwner = await addMachineWithToken(server, org.id, { roles: ['ORG_OWNER'] });
    project = await addProject(server, { orgId: org.id });
  });
  afterAll(() => server?.stop());

  const oidc = (value: Record<string, unknown>) => ({
    case: 'oidc' as const,
    value: { redirectUris: [REDIRECT], ...value },
  });

  it('an organization owner cannot make its own application an API client, on create or update', async () => {
    const owner = server.client(ApplicationService, { token: orgOwner.token });
    expect(
      await codeOf(
        owner.createApplication({ projectId: project, name: 'sneaky', configuration: oidc({ apiAccess: true }) }),
      ),
    ).toBe(Code.PermissionDenied);
    const created = await owner.createApplication({ projectId: project, name: 'mine', configuration: oidc({}) });
    const applicationId = created.applicationId;
    const update = (value: Record<string, unknown>, paths: string[]) =>
      owner.updateApplication({ applicationId, updateMask: { paths }, configuration: { case: 'oidc', value } });
    expect(await codeOf(update({ apiAccess: true }, ['oidc.api_access']))).toBe(Code.PermissionDenied);
    // without a mask: a set optional field is a change
    expect(
      await codeOf(
        owner.updateApplication({ applicationId, configuration: { case: 'oidc', value: { apiAccess: true } } }),
      ),
    ).toBe(Code.PermissionDenied);
    // validate-only answers the same
    expect(
      await codeOf(
        owner.updateApplication({
          applicationId,
          validateOnly: true,
          updateMask: { paths: ['oidc.api_access'] },
          configuration: { case: 'oidc', value: { apiAccess: true } },
        }),
      ),
    ).toBe(Code.PermissionDenied);
    // every other setting stays the owner's, with the unchanged value sent along (as the console does)
    await update({ apiAccess: false, developmentMode: true }, ['oidc.api_access', 'oidc.development_mode']);
    const { application } = await owner.getApplication({ applicationId });
    expect(application?.configuration.value).toMatchObject({ apiAccess: false, developmentMode: true });
  });

  it('an instance owner marks it (shown by Get and List, in the events); the owner cannot unmark it', async () => {
    const owner = server.client(ApplicationService, { token: orgOwner.token });
    const { applicationId } = await owner.createApplication({
      projectId: project,
      name: 'trusted',
      configuration: oidc({}),
    });
    await markApiClient(server, applicationId);
    const { application } = await owner.getApplication({ applicationId });
    expect(application?.configuration.value).toMatchObject({ apiAccess: true });
    const list = await server.client(ApplicationService).listApplications({
      filters: [{ filter: { case: 'projectId', value: project } }],
    });
    const listed = list.applications.find((a) => a.applicationId === applicationId);
    expect(listed?.configuration.value).toMatchObject({ apiAccess: true });
    const changed = await server.app.database.db
      .select({ payload: events.payload })
      .from(events)
      .where(and(eq(events.aggregateId, project), eq(events.eventType, 'project.application.config.oidc.changed')));
    expect(changed.map((e) => e.payload)).toContainEqual(
      expect.objectContaining({ appId: applicationId, apiAccess: true }),
    );
    expect(
      await codeOf(
        owner.updateApplication({
          applicationId,
          updateMask: { paths: ['oidc.api_access'] },
          configuration: { case: 'oidc', value: { apiAccess: false } },
        }),
      ),
    ).toBe(Code.PermissionDenied);
    // nor re-point it: whoever chooses an API client's redirect URIs receives its users' API tokens
    expect(
      await codeOf(
        owner.updateApplication({
          applicationId,
          updateMask: { paths: ['oidc.api_access', 'oidc.redirect_uris'] },
          configuration: { case: 'oidc', value: { apiAccess: true, redirectUris: ['https://attacker.example/cb'] } },
        }),
      ),
    ).toBe(Code.PermissionDenied);
    // its name stays the owner's, and sending the configuration unchanged is no change
    await owner.updateApplication({
      applicationId,
      name: 'trusted, renamed',
      updateMask: { paths: ['name', 'oidc.api_access', 'oidc.redirect_uris'] },
      configuration: { case: 'oidc', value: { apiAccess: true, redirectUris: [REDIRECT] } },
    });
    // the instance administrator may
    await server.client(ApplicationService).updateApplication({
      applicationId,
      updateMask: { paths: ['oidc.redirect_uris'] },
      configuration: { case: 'oidc', value: { redirectUris: ['https://trusted.example/cb'] } },
    });
  });

  it("the first organization's owner cannot re-point the console to catch administrators' API tokens", async () => {
    const [{ id: firstOrg }] = await server.app.database.db
      .select({ id: orgs.id })
      .from(orgs)
      .innerJoin(projects, eq(projects.orgId, orgs.id))
      .where(eq(projects.id, 'portcullis-system'));
    const firstOwner = await addMachineWithToken(server, firstOrg, { roles: ['ORG_OWNER'] });
    const owner = server.client(ApplicationService, { token: firstOwner.token });
    const { application } = await owner.getApplication({ applicationId: 'portcullis-console' });
    expect(application?.configuration.value).toMatchObject({ apiAccess: true });
    const attempts: [string, Record<string, unknown>][] = [
      ['oidc.redirect_uris', { redirectUris: ['https://attacker.example/cb'] }],
      ['oidc.additional_origins', { additionalOrigins: ['https://attacker.example'] }],
      ['oidc.api_access', { apiAccess: false }],
    ];
    for (const [path, value] of attempts) {
      const change = owner.updateApplication({
        applicationId: 'portcullis-console',
        updateMask: { paths: [path] },
        configuration: { case: 'oidc', value },
      });
      expect(await codeOf(change), path).toBe(Code.PermissionDenied);
    }
  });
});

describe('existing applications when the setting arrives (migration 0022)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('the console stays an API client; every other application is not one', async () => {
    const db = server.app.database.db;
    const project = await addProject(server);
    const app = await addOidcApp(server, project);
    // configurations as they were saved before the setting existed
    await db.execute(sql`update applications set oidc = oidc - 'apiAccess' where oidc is not null`);
    await db.execute(sql.raw(fs.readFileSync(path.join(MIGRATIONS_FOLDER, '0022_console_api_access.sql'), 'utf8')));
    const apiAccessOf = async (id: string) =>
      (await db.select({ oidc: applications.oidc }).from(applications).where(eq(applications.id, id)))[0].oidc
        ?.apiAccess;
    expect(await apiAccessOf('portcullis-console')).toBe(true);
    expect(await apiAccessOf(app.applicationId)).toBeUndefined();
    const { application } = await server.client(ApplicationService).getApplication({
      applicationId: app.applicationId,
    });
    expect(application?.configuration.value).toMatchObject({ apiAccess: false });
  });
});
