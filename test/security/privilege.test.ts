import { Code } from '@connectrpc/connect';
import { and, eq } from 'drizzle-orm';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { AuthorizationService } from '../../gen/portcullis/authorization/v2/authorization_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { users } from '../../src/db/schema/index';
import { createAdministrator } from '../../src/domain/administrator/manage';
import { updateInstanceSettings } from '../../src/domain/instance/update-settings';
import { startTestServer, type TestServer } from '../helpers/server';
import { addOidcApp, addProject, markApiClient } from '../helpers/apps';
import { defaultOrgId, systemCtx } from '../helpers/context';
import { basic, postForm } from '../helpers/forms';
import { codeFlowTokens, rp } from '../helpers/login-flow';
import { addMachineWithToken } from '../helpers/machines';
import { addOrg } from '../helpers/orgs';
import { addUser } from '../helpers/users';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const USER_ID_TYPE = 'urn:service:params:oauth:token-type:user_id';
const API_SCOPE = 'urn:service:iam:org:project:id:api:aud';

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) => e as { code: Code; rawMessage: string },
  );

describe('higher-privileged accounts are out of reach of lower administrators', () => {
  let server: TestServer;
  let orgId: string;
  let admin: string;
  let adminMachine: string;
  let attackers: Record<string, { userId: string; token: string }>;

  beforeAll(async () => {
    server = await startTestServer();
    orgId = await defaultOrgId(server);
    const db = server.app.database.db;
    const idOf = async (username: string) =>
      (
        await db
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.username, username), eq(users.orgId, orgId)))
      )[0].id;
    admin = await idOf('admin');
    adminMachine = await idOf('admin-machine');
    const iamUserManager = await addMachineWithToken(server, orgId, { username: 'iam-user-manager' });
    await createAdministrator(systemCtx(server), {
      userId: iamUserManager.userId,
      resource: { instance: true },
      roles: ['IAM_USER_MANAGER'],
    });
    attackers = {
      ORG_USER_MANAGER: await addMachineWithToken(server, orgId, {
        username: 'org-user-manager',
        roles: ['ORG_USER_MANAGER'],
      }),
      ORG_OWNER: await addMachineWithToken(server, orgId, { username: 'org-owner', roles: ['ORG_OWNER'] }),
      IAM_USER_MANAGER: iamUserManager,
    };
  });
  afterAll(() => server?.stop());

  it('no lower admin takes over admin or admin-machine via any credential, state, address, metadata RPC', async () => {
    for (const [role, attacker] of Object.entries(attackers)) {
      const api = server.client(UserService, { token: attacker.token });
      const attacks: [string, () => Promise<unknown>][] = [
        ['setPassword admin', () => api.setPassword({ userId: admin, newPassword: { password: 'Hijack-Passw0rd!1' } })],
        [
          'passwordReset admin (code back)',
          () => api.passwordReset({ userId: admin, medium: { case: 'returnCode', value: {} } }),
        ],
        [
          'updateUser admin password',
          () =>
            api.updateUser({
              userId: admin,
              userType: {
                case: 'human',
                value: { passwordType: { case: 'password', value: { password: 'Hijack-Passw0rd!1' } } },
              },
            }),
        ],
        [
          'setEmail admin',
          () =>
            api.setEmail({
              userId: admin,
              email: 'attacker@evil.example',
              verification: { case: 'isVerified', value: true },
            }),
        ],
        ['lockUser admin', () => api.lockUser({ userId: admin })],
        ['deactivateUser admin', () => api.deactivateUser({ userId: admin })],
        ['deleteUser admin', () => api.deleteUser({ userId: admin })],
        [
          'setUserMetadata admin',
          () => api.setUserMetadata({ userId: admin, metadata: [{ key: 'k', value: new Uint8Array([1]) }] }),
        ],
        ['addPersonalAccessToken admin-machine', () => api.addPersonalAccessToken({ userId: adminMachine })],
        ['addSecret admin-machine', () => api.addSecret({ userId: adminMachine })],
        ['addKey admin-machine', () => api.addKey({ userId: adminMachine })],
        ['lockUser admin-machine', () => api.lockUser({ userId: adminMachine })],
      ];
      for (const [name, attack] of attacks) {
        const err = await failureOf(attack());
        expect(err?.code, `${role}: ${name}`).toBe(Code.PermissionDenied);
      }
    }
    // admin still signs in with its own password, and admin-machine's PAT still works.
    const self = await server.client(UserService).getUserByID({ userId: admin });
    expect(self.user?.state).toBe(1);
    const project = await addProject(server);
    const app = await addOidcApp(server, project);
    const config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    const { tokens } = await codeFlowTokens(server, config, { username: 'admin', password: server.adminPassword });
    expect(tokens.access_token).toBeTruthy();
  });

  it('an org owner cannot grant roles it does not hold, nor change the memberships of an instance owner', async () => {
    const api = server.client(AdministratorService, { token: attackers.ORG_OWNER.token });
    const plain = await addUser(server);
    // granting the roles it holds itself is fine
    await api.createAdministrator({
      userId: plain.id,
      resource: { resource: { case: 'organizationId', value: orgId } },
      roles: ['ORG_USER_MANAGER'],
    });
    // an org membership for the instance owner would let it be removed or changed later: refused
    const err = await failureOf(
      api.deleteAdministrator({ userId: admin, resource: { resource: { case: 'organizationId', value: orgId } } }),
    );
    expect(err?.code).toBe(Code.PermissionDenied);
    const managerApi = server.client(AdministratorService, { token: attackers.ORG_USER_MANAGER.token });
    const lower = await failureOf(
      managerApi.createAdministrator({
        userId: attackers.ORG_USER_MANAGER.userId,
        resource: { resource: { case: 'organizationId', value: orgId } },
        roles: ['ORG_OWNER'],
      }),
    );
    expect(lower?.code).toBe(Code.PermissionDenied);
  });

  it('an admin still manages users whose permissions it covers, and users still change their own account', async () => {
    const manager = server.client(UserService, { token: attackers.ORG_USER_MANAGER.token });
    const plain = await addUser(server);
    await manager.setPassword({ userId: plain.id, newPassword: { password: 'Another-Passw0rd!1' } });
    await manager.lockUser({ userId: plain.id });
    const owner = server.client(UserService, { token: attackers.ORG_OWNER.token });
    await owner.setUserMetadata({
      userId: attackers.ORG_USER_MANAGER.userId,
      metadata: [{ key: 'team', value: new Uint8Array([1]) }],
    });
    // self-service on one's own machine user: its own metadata
    const self = server.client(UserService, { token: attackers.ORG_USER_MANAGER.token });
    await self.setUserMetadata({
      userId: attackers.ORG_USER_MANAGER.userId,
      metadata: [{ key: 'mine', value: new Uint8Array([2]) }],
    });
  });
});

describe('the API accepts only tokens issued for it', () => {
  let server: TestServer;
  let config: client.Configuration;
  let app: Awaited<ReturnType<typeof addOidcApp>>;

  beforeAll(async () => {
    server = await startTestServer();
    const project = await addProject(server);
    app = await addOidcApp(server, project);
    config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
  });
  afterAll(() => server?.stop());

  it("a tenant's application cannot use an instance owner's sign-in to act on the API", async () => {
    const { tokens } = await codeFlowTokens(server, config, { username: 'admin', password: server.adminPassword });
    const err = await failureOf(server.client(UserService, { token: tokens.access_token }).listUsers({}));
    expect(err?.code).toBe(Code.Unauthenticated);
    const v1 = await server.fetch('/management/v1/users/_search', {
      method: 'POST',
      token: tokens.access_token,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(v1.status).toBe(401);
    // the same token is fine at userinfo: it was issued for the application
    const info = await fetch(`${server.url}/oidc/v1/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(200);
  });

  it("with the API audience scope an API client's user reaches the API with its own rights", async () => {
    await markApiClient(server, app.applicationId);
    const { tokens } = await codeFlowTokens(
      server,
      config,
      { username: 'admin', password: server.adminPassword },
      { scope: `openid ${API_SCOPE}` },
    );
    const list = await server.client(UserService, { token: tokens.access_token }).listUsers({});
    expect(list.result.length).toBeGreaterThan(0);
  });
});

describe('impersonation never reaches upwards', () => {
  let server: TestServer;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let impersonator: { userId: string; token: string };
  let project: string;

  beforeAll(async () => {
    server = await startTestServer();
    await updateInstanceSettings(systemCtx(server), { impersonationAllowed: true });
    const orgId = await defaultOrgId(server);
    project = await addProject(server);
    app = await addOidcApp(server, project, { grantTypes: ['AUTHORIZATION_CODE', 'TOKEN_EXCHANGE'] });
    impersonator = await addMachineWithToken(server, orgId, { username: 'impersonator', roles: ['ORG_IMPERSONATOR'] });
  });
  afterAll(() => server?.stop());

  // The actor's own token: a PAT is not an OAuth token, so sign in the machine user by client credentials.
  async function actorToken() {
    const { addSecret } = await import('../../src/domain/user/credentials');
    const { clientSecret, clientId } = await addSecret(systemCtx(server), { userId: impersonator.userId });
    const res = await postForm(
      server,
      '/oauth/v2/token',
      { grant_type: 'client_credentials', scope: `openid urn:service:iam:org:project:id:${project}:aud` },
      { authorization: basic(clientId, clientSecret) },
    );
    return ((await res.json()) as { access_token: string }).access_token;
  }

  it('an ORG_IMPERSONATOR cannot act as the instance owner, but can act as a plain user', async () => {
    const db = server.app.database.db;
    const [admin] = await db.select({ id: users.id }).from(users).where(eq(users.username, 'admin'));
    const actor = await actorToken();
    const exchange = (subject: string) =>
      postForm(
        server,
        '/oauth/v2/token',
        {
          grant_type: TOKEN_EXCHANGE,
          subject_token: subject,
          subject_token_type: USER_ID_TYPE,
          actor_token: actor,
          actor_token_type: ACCESS_TOKEN_TYPE,
        },
        { authorization: basic(app.clientId, app.clientSecret!) },
      );
    const up = await exchange(admin.id);
    expect(up.status, await up.clone().text()).toBe(400);
    expect(((await up.json()) as { error: string }).error).toBe('invalid_grant');
    const plain = await addUser(server);
    const down = await exchange(plain.id);
    expect(down.status, await down.clone().text()).toBe(200);
  });
});

describe('a user cannot verify an address it does not control', () => {
  let server: TestServer;
  let victim: Awaited<ReturnType<typeof addUser>>;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer();
    const project = await addProject(server);
    const app = await addOidcApp(server, project);
    await markApiClient(server, app.applicationId);
    const config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    victim = await addUser(server);
    token = (await codeFlowTokens(server, config, victim, { scope: `openid ${API_SCOPE}` })).tokens.access_token;
  });
  afterAll(() => server?.stop());

  it('self-service SetEmail and ResendEmailCode never hand the code back, nor mark the address verified', async () => {
    const self = server.client(UserService, { token });
    const attacks: [string, () => Promise<unknown>][] = [
      [
        'setEmail returnCode',
        () =>
          self.setEmail({
            userId: victim.id,
            email: 'ceo@victim.example',
            verification: { case: 'returnCode', value: {} },
          }),
      ],
      [
        'setEmail isVerified',
        () =>
          self.setEmail({
            userId: victim.id,
            email: 'ceo@victim.example',
            verification: { case: 'isVerified', value: true },
          }),
      ],
    ];
    for (const [name, attack] of attacks) expect((await failureOf(attack()))?.code, name).toBe(Code.PermissionDenied);
    // the allowed path: the code goes to the new address, not to the caller
    const sent = await self.setEmail({
      userId: victim.id,
      email: 'me@victim.example',
      verification: { case: 'sendCode', value: {} },
    });
    expect(sent.verificationCode).toBeUndefined();
    const resend = await failureOf(
      self.resendEmailCode({ userId: victim.id, verification: { case: 'returnCode', value: {} } }),
    );
    expect(resend?.code).toBe(Code.PermissionDenied);
    const { user } = await self.getUserByID({ userId: victim.id });
    expect(user?.type.case === 'human' && user.type.value.email).toMatchObject({
      email: 'me@victim.example',
      isVerified: false,
    });
  });

  it('a user cannot have the server mail a link to a host of its choosing', async () => {
    const self = server.client(UserService, { token });
    const err = await failureOf(
      self.setEmail({
        userId: victim.id,
        email: 'me2@victim.example',
        verification: { case: 'sendCode', value: { urlTemplate: 'https://evil.example/verify?code={{.Code}}' } },
      }),
    );
    expect(err?.code).toBe(Code.PermissionDenied);
    const { instanceDomains } = await import('../../src/db/schema/index');
    const [{ domain: host }] = await server.app.database.db.select().from(instanceDomains);
    // an instance domain by another scheme or on another port is another service on that host
    for (const urlTemplate of [
      `http://${host}:6666/verify?code={{.Code}}`,
      `ftp://${host}/verify?code={{.Code}}`,
      `https://${host}:8443/verify?code={{.Code}}`,
      `http://${host}/verify?code={{.Code}}`,
    ]) {
      const refused = await failureOf(
        self.resendEmailCode({ userId: victim.id, verification: { case: 'sendCode', value: { urlTemplate } } }),
      );
      // another scheme is not even a link (invalid_argument); another port or http is refused
      expect([Code.PermissionDenied, Code.InvalidArgument], `${urlTemplate} ${refused?.rawMessage}`).toContain(
        refused?.code,
      );
    }
    // the server's own origin, and https on an instance domain, are the user's to choose
    for (const urlTemplate of [`${server.url}/verify?code={{.Code}}`, `https://${host}/verify?code={{.Code}}`])
      await self.resendEmailCode({ userId: victim.id, verification: { case: 'sendCode', value: { urlTemplate } } });
    // an administrator may choose any link
    await server.client(UserService).resendEmailCode({
      userId: victim.id,
      verification: { case: 'sendCode', value: { urlTemplate: 'https://app.example/verify?code={{.Code}}' } },
    });
  });
});

describe('administrators do not learn of users in organizations they cannot read', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('memberships and authorizations for a user of another organization are NOT_FOUND', async () => {
    const a = await addOrg(server, 'Reader A');
    const b = await addOrg(server, 'Reader B');
    const ownerA = await addMachineWithToken(server, a.id, { username: 'owner-a', roles: ['ORG_OWNER'] });
    const userB = await addMachineWithToken(server, b.id, { username: 'user-b' });
    const { createProject } = await import('../../src/domain/project/commands');
    const { addProjectRole } = await import('../../src/domain/project/roles');
    const project = await createProject(systemCtx(server), { orgId: a.id, name: 'A project' });
    await addProjectRole(systemCtx(server), { projectId: project.id, key: 'reader', displayName: 'Reader' });
    const members = server.client(AdministratorService, { token: ownerA.token });
    const err = await failureOf(
      members.createAdministrator({
        userId: userB.userId,
        resource: { resource: { case: 'organizationId', value: a.id } },
        roles: ['ORG_OWNER'],
      }),
    );
    expect(err?.code).toBe(Code.NotFound);
    const authz = server.client(AuthorizationService, { token: ownerA.token });
    const err2 = await failureOf(
      authz.createAuthorization({ userId: userB.userId, projectId: project.id, roleKeys: ['reader'] }),
    );
    expect(err2?.code).toBe(Code.NotFound);
    // an unknown id reads the same
    const err3 = await failureOf(
      authz.createAuthorization({ userId: '999999999', projectId: project.id, roleKeys: ['reader'] }),
    );
    expect(err3?.code).toBe(Code.NotFound);
  });
});
