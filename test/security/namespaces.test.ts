import { Code } from '@connectrpc/connect';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { addOidcApp, addProject } from '../helpers/apps';
import { basic, postForm } from '../helpers/forms';
import { codeFlowTokens, rp } from '../helpers/login-flow';
import { addMachine, addMachineWithToken } from '../helpers/machines';
import { addOrg } from '../helpers/orgs';
import { addUser } from '../helpers/users';

describe('client ids, audiences and login names cannot be confused', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it("a machine user cannot be named like a project or an app's client id, nor introspect their tokens", async () => {
    const project = await addProject(server);
    const app = await addOidcApp(server, project);
    const config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    const { tokens } = await codeFlowTokens(server, config, await addUser(server));
    const tenant = await addOrg(server, 'Tenant');
    const owner = await addMachineWithToken(server, tenant.id, { username: 'tenant-owner', roles: ['ORG_OWNER'] });
    const users = server.client(UserService, { token: owner.token });
    for (const username of [project, app.clientId, '12345']) {
      const err = await users
        .createUser({ organizationId: tenant.id, username, userType: { case: 'machine', value: { name: 'x' } } })
        .catch((e) => e);
      expect(err?.code, username).toBe(Code.InvalidArgument);
    }
    // any machine user, whatever its name, is only ever in the audience of its own tokens
    const m = await addMachine(server, { orgId: tenant.id });
    const res = await postForm(
      server,
      '/oauth/v2/introspect',
      { token: tokens.access_token },
      { authorization: basic(m.username, m.clientSecret) },
    );
    expect(await res.json()).toEqual({ active: false });
    const own = await postForm(
      server,
      '/oauth/v2/token',
      { grant_type: 'client_credentials', scope: 'openid' },
      { authorization: basic(m.username, m.clientSecret) },
    );
    const ownToken = ((await own.json()) as { access_token: string }).access_token;
    const self = await postForm(
      server,
      '/oauth/v2/introspect',
      { token: ownToken },
      { authorization: basic(m.username, m.clientSecret) },
    );
    expect(await self.json()).toMatchObject({ active: true, sub: m.id });
  });

  it("a username cannot shadow another organization's login names", async () => {
    const victim = await addOrg(server, 'Victim');
    await server
      .client(OrganizationService)
      .addOrganizationDomain({ organizationId: victim.id, domain: 'victim.example' });
    const attackerOrg = await addOrg(server, 'Attacker');
    const owner = await addMachineWithToken(server, attackerOrg.id, {
      username: 'attacker-owner',
      roles: ['ORG_OWNER'],
    });
    const users = server.client(UserService, { token: owner.token });
    const human = (username: string) => ({
      organizationId: attackerOrg.id,
      username,
      userType: {
        case: 'human' as const,
        value: { profile: { givenName: 'C', familyName: 'E' }, email: { email: 'ceo@example.com' } },
      },
    });
    const err = await users.createUser(human('ceo@victim.example')).catch((e) => e);
    expect(err?.code).toBe(Code.InvalidArgument);
    expect(err?.rawMessage).toContain('victim.example');
    const { id } = await users.createUser(human('ceo@attacker-own.example'));
    const rename = await users.updateUser({ userId: id, username: 'CEO@Victim.Example' }).catch((e) => e);
    expect(rename?.code).toBe(Code.InvalidArgument);
    // the victim organization itself may use its domain
    await server.client(UserService).createUser({ ...human('ceo@victim.example'), organizationId: victim.id });
  });
});
