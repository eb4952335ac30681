import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { AuthorizationService } from '../../gen/portcullis/authorization/v2/authorization_service_pb';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../gen/portcullis/project/v2/project_service_pb';
import { createAuthorization } from '../../src/domain/authorization/commands';
import { createProject } from '../../src/domain/project/commands';
import { addProjectRole } from '../../src/domain/project/roles';
import { startTestServer, type TestServer } from '../helpers/server';
import { addApiApp, addOidcApp, addProject, LOGOUT_REDIRECT, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { defaultOrgId, systemCtx } from '../helpers/context';
import { basic, postForm } from '../helpers/forms';
import { codeFlowTokens, rp } from '../helpers/login-flow';
import { addMachine } from '../helpers/machines';
import { addOrg } from '../helpers/orgs';
import { addUser } from '../helpers/users';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const TT = { access: 'urn:ietf:params:oauth:token-type:access_token', id: 'urn:ietf:params:oauth:token-type:id_token' };

describe('token lifecycle', () => {
  let server: TestServer;
  let project: string;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let config: client.Configuration;
  let api: client.Configuration;

  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    app = await addOidcApp(server, project, { grantTypes: ['AUTHORIZATION_CODE', 'REFRESH_TOKEN', 'TOKEN_EXCHANGE'] });
    config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    const a = await addApiApp(server, project);
    api = await rp(server, a.clientId, a.clientSecret, client.ClientSecretBasic(a.clientSecret));
  });
  afterAll(() => server?.stop());

  const exchange = (params: Record<string, string>) =>
    postForm(
      server,
      '/oauth/v2/token',
      { grant_type: TOKEN_EXCHANGE, ...params },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
  const active = async (token: string, cfg = api) => (await client.tokenIntrospection(cfg, token)).active;
  const userinfo = (token: string) =>
    fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } });

  it('token exchange never widens: ID token of an `openid` session → `openid` only, no refresh token', async () => {
    const user = await addUser(server);
    const { tokens } = await codeFlowTokens(server, config, user, { scope: 'openid' });
    const wide = await exchange({
      subject_token: tokens.id_token!,
      subject_token_type: TT.id,
      scope: 'openid profile email phone address offline_access',
    });
    expect(wide.status).toBe(400);
    expect(((await wide.json()) as { error: string }).error).toBe('invalid_scope');
    const plain = await exchange({ subject_token: tokens.id_token!, subject_token_type: TT.id });
    expect(plain.status).toBe(200);
    const body = (await plain.json()) as { scope: string; refresh_token?: string; access_token: string };
    expect(body.scope).toBe('openid');
    expect(body.refresh_token).toBeUndefined();
    const info = (await (await userinfo(body.access_token)).json()) as Record<string, unknown>;
    expect(info.email).toBeUndefined();
    expect(info.name).toBeUndefined();
  });

  it('ended sessions stay ended: after logout neither the ID token nor the access token can be exchanged', async () => {
    const user = await addUser(server);
    const r = await codeFlowTokens(server, config, user);
    const logout = client.buildEndSessionUrl(config, {
      id_token_hint: r.tokens.id_token!,
      post_logout_redirect_uri: LOGOUT_REDIRECT,
    });
    await r.browser.request(logout.toString());
    for (const [token, type] of [
      [r.tokens.id_token!, TT.id],
      [r.tokens.access_token, TT.access],
    ]) {
      const res = await exchange({ subject_token: token, subject_token_type: type });
      expect(res.status, type).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_grant');
    }
  });

  it('deactivating an org stops its users and machines; reactivation restores sign-in, not old tokens', async () => {
    const org = await addOrg(server, 'Stopped Org');
    const user = await addUser(server, { orgId: org.id });
    const machine = await addMachine(server, { orgId: org.id });
    const { tokens } = await codeFlowTokens(server, config, user);
    const machineToken = async () =>
      postForm(
        server,
        '/oauth/v2/token',
        { grant_type: 'client_credentials', scope: 'openid' },
        { authorization: basic(machine.username, machine.clientSecret) },
      );
    const mt = ((await (await machineToken()).json()) as { access_token: string }).access_token;
    expect(await active(tokens.access_token)).toBe(true);
    const orgs = server.client(OrganizationService);
    await orgs.deactivateOrganization({ organizationId: org.id });

    expect(await active(tokens.access_token)).toBe(false);
    expect((await userinfo(tokens.access_token)).status).toBe(401);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await machineToken()).status).toBeGreaterThanOrEqual(400);
    expect(await active(mt)).toBe(false);
    const browser = new Browser(server.url);
    const landed = await browser
      .login(
        client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid' }).toString(),
        user.username,
        user.password,
      )
      .catch((e: Error) => e.message);
    expect(landed).not.toMatch(/[?&]code=/);

    await orgs.activateOrganization({ organizationId: org.id });
    expect(await active(tokens.access_token)).toBe(false);
    const again = await codeFlowTokens(server, config, user);
    expect(await active(again.tokens.access_token)).toBe(true);
    expect((await machineToken()).status).toBe(200);
  });

  it('a deactivated application loses its tokens and its refresh', async () => {
    const other = await addOidcApp(server, project, { grantTypes: ['AUTHORIZATION_CODE', 'REFRESH_TOKEN'] });
    const otherConfig = await rp(
      server,
      other.clientId,
      other.clientSecret,
      client.ClientSecretBasic(other.clientSecret!),
    );
    const { tokens } = await codeFlowTokens(server, otherConfig, await addUser(server));
    expect(await active(tokens.access_token)).toBe(true);
    await server.client(ApplicationService).deactivateApplication({ applicationId: other.applicationId });
    expect(await active(tokens.access_token)).toBe(false);
    expect((await userinfo(tokens.access_token)).status).toBe(401);
    await expect(client.refreshTokenGrant(otherConfig, tokens.refresh_token!)).rejects.toBeDefined();
  });

  it('a deactivated or deleted project makes its tokens inactive', async () => {
    const p = await addProject(server);
    const a = await addOidcApp(server, p, { grantTypes: ['AUTHORIZATION_CODE', 'REFRESH_TOKEN'] });
    const cfg = await rp(server, a.clientId, a.clientSecret, client.ClientSecretBasic(a.clientSecret!));
    const user = await addUser(server);
    const first = await codeFlowTokens(server, cfg, user);
    const projects = server.client(ProjectService);
    await projects.deactivateProject({ projectId: p });
    expect((await userinfo(first.tokens.access_token)).status).toBe(401);
    await projects.activateProject({ projectId: p });
    const second = await codeFlowTokens(server, cfg, user);
    expect((await userinfo(second.tokens.access_token)).status).toBe(200);
    await projects.deleteProject({ projectId: p });
    expect((await userinfo(second.tokens.access_token)).status).toBe(401);
  });

  it('a removed authorization ends refresh and the tokens already issued (authorization_required)', async () => {
    const orgId = await defaultOrgId(server);
    const { id: p } = await createProject(systemCtx(server), { orgId, name: 'Guarded', authorizationRequired: true });
    await addProjectRole(systemCtx(server), { projectId: p, key: 'member', displayName: 'Member' });
    const a = await addOidcApp(server, p, { grantTypes: ['AUTHORIZATION_CODE', 'REFRESH_TOKEN'] });
    const cfg = await rp(server, a.clientId, a.clientSecret, client.ClientSecretBasic(a.clientSecret!));
    const user = await addUser(server);
    const { id } = await createAuthorization(systemCtx(server), {
      userId: user.id,
      projectId: p,
      roleKeys: ['member'],
    });
    const { tokens } = await codeFlowTokens(server, cfg, user);
    expect((await userinfo(tokens.access_token)).status).toBe(200);
    await server.client(AuthorizationService).deleteAuthorization({ id });
    expect((await userinfo(tokens.access_token)).status).toBe(401);
    await expect(client.refreshTokenGrant(cfg, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});
