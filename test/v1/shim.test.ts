import { UserState } from '../../gen/portcullis/user/v2/user_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectGrant } from '../../src/domain/project/grants';
import { hashPassword } from '../../src/crypto/passwords/index';
import { startTestServer, type TestServer } from '../helpers/server';
import { get, post } from './helpers';
import { defaultOrgId, systemCtx } from '../helpers/context';
import { addMachineWithToken } from '../helpers/machines';

const ORG = 'x-service-orgid';

describe('v1 shim: the organization from x-service-orgid, onto the v2 domain functions', () => {
  let server: TestServer;
  let home: string; // the bootstrap administrator's organization
  let foreign: string;
  let homeOwner: { userId: string; token: string }; // ORG_OWNER of home only
  const run = Date.now();
  const name = (s: string) => `${s}-${run}`;

  beforeAll(async () => {
    server = await startTestServer();
    home = await defaultOrgId(server);
    foreign = `f${run}`;
    const res = await post(server, '/admin/v1/import', {
      dataOrgs: { orgs: [{ orgId: foreign, org: { name: name('Foreign') } }] },
    });
    expect(res.body.errors).toEqual([]);
    homeOwner = await addMachineWithToken(server, home, { name: 'v1 test', roles: ['ORG_OWNER'] });
  });
  afterAll(() => server?.stop());

  const humanBody = (userName: string, extra: Record<string, unknown> = {}) => ({
    userName,
    profile: { firstName: 'Grace', lastName: 'Hopper', preferredLanguage: 'en', gender: 'GENDER_FEMALE' },
    email: { email: `${userName}@example.com` },
    ...extra,
  });

  describe('AddHumanUser, GetUserByID', () => {
    it('no header: creates in the caller’s org, in state INITIAL without password and verified email', async () => {
      const res = await post(server, '/management/v1/users/human', humanBody(name('grace')));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        userId: expect.any(String),
        details: { sequence: expect.any(String), creationDate: expect.any(String), resourceOwner: home },
      });
      const got = await get(server, `/management/v1/users/${res.body.userId}`);
      expect(got.status).toBe(200);
      expect(got.body.user).toMatchObject({
        id: res.body.userId,
        state: 'USER_STATE_INITIAL',
        userName: name('grace'),
        details: { resourceOwner: home },
        human: {
          profile: { firstName: 'Grace', lastName: 'Hopper', gender: 'GENDER_FEMALE' },
          email: { email: `${name('grace')}@example.com`, isEmailVerified: false },
        },
      });
      // v2 has no initial state: the same user is active there, and an ACTIVE filter finds it
      const users = server.client(UserService);
      expect((await users.getUserByID({ userId: res.body.userId })).user?.state).toBe(UserState.ACTIVE);
      const active = await users.listUsers({
        filters: [
          { filter: { case: 'inUserIdsFilter', value: { userIds: [res.body.userId] } } },
          { filter: { case: 'stateFilter', value: { state: UserState.ACTIVE } } },
        ],
      });
      expect(active.result.map((u) => u.userId)).toEqual([res.body.userId]);
    });

    it('is ACTIVE with an initial password', async () => {
      const res = await post(
        server,
        '/management/v1/users/human',
        humanBody(name('ada'), { initialPassword: 'Initial-Passw0rd!' }),
      );
      expect(res.status).toBe(200);
      expect((await get(server, `/management/v1/users/${res.body.userId}`)).body.user.state).toBe('USER_STATE_ACTIVE');
    });

    it('creates in the header’s organization, and finds the user only there', async () => {
      const res = await post(server, '/management/v1/users/human', humanBody(name('linus')), {
        headers: { [ORG]: foreign },
      });
      expect(res.status).toBe(200);
      expect(res.body.details.resourceOwner).toBe(foreign);
      expect(
        (await get(server, `/management/v1/users/${res.body.userId}`, { headers: { [ORG]: foreign } })).status,
      ).toBe(200);
      const elsewhere = await get(server, `/management/v1/users/${res.body.userId}`);
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body.code).toBe(5);
    });

    it('refuses a foreign organization with 403 and a malformed header with 400', async () => {
      const denied = await post(server, '/management/v1/users/human', humanBody(name('eve')), {
        token: homeOwner.token,
        headers: { [ORG]: foreign },
      });
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({ code: 7, message: expect.stringContaining(foreign), details: expect.any(Array) });
      expect(
        (await get(server, '/management/v1/users/1', { token: homeOwner.token, headers: { [ORG]: foreign } })).status,
      ).toBe(403);
      const malformed = await post(server, '/management/v1/users/human', humanBody(name('mal')), {
        headers: { [ORG]: 'not an id!' },
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body.code).toBe(3);
      const own = await post(server, '/management/v1/users/human', humanBody(name('own')), { token: homeOwner.token });
      expect(own.status).toBe(200);
      expect(own.body.details.resourceOwner).toBe(home);
    });

    it('answers invalid input with 400 naming the field, and no token with 401', async () => {
      const res = await post(server, '/management/v1/users/human', {
        userName: name('bad'),
        profile: { firstName: 'A', lastName: 'B' },
        email: { email: 'nope' },
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/email/);
      expect((await post(server, '/management/v1/users/human', humanBody(name('anon')), { token: null })).status).toBe(
        401,
      );
    });
  });

  describe('ImportHumanUser, AddMachineUser', () => {
    it('imports a user with a password hash', async () => {
      const hash = await hashPassword('Imported-Passw0rd!');
      const res = await post(
        server,
        '/management/v1/users/human/_import',
        humanBody(name('imp'), {
          email: { email: `${name('imp')}@example.com`, isEmailVerified: true },
          hashedPassword: { value: hash },
          passwordChangeRequired: true,
        }),
        { headers: { [ORG]: foreign } },
      );
      expect(res.status).toBe(200);
      expect(res.body.details.resourceOwner).toBe(foreign);
      const user = (await get(server, `/management/v1/users/${res.body.userId}`, { headers: { [ORG]: foreign } })).body
        .user;
      expect(user.state).toBe('USER_STATE_ACTIVE');
      expect(user.human.email.isEmailVerified).toBe(true);
      const own = await post(
        server,
        '/management/v1/users/human/_import',
        humanBody(name('imp4'), { password: 'Imported-Passw0rd!' }),
      );
      expect(own.status).toBe(200);
      expect(own.body.details.resourceOwner).toBe(home);
      const bad = await post(
        server,
        '/management/v1/users/human/_import',
        humanBody(name('imp2'), { hashedPassword: { value: '$md5$nope' } }),
      );
      expect(bad.status).toBe(400);
      const denied = await post(server, '/management/v1/users/human/_import', humanBody(name('imp3')), {
        token: homeOwner.token,
        headers: { [ORG]: foreign },
      });
      expect(denied.status).toBe(403);
    });

    it('adds a machine user', async () => {
      const res = await post(
        server,
        '/management/v1/users/machine',
        { userName: name('bot'), name: 'Bot', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' },
        { headers: { [ORG]: foreign } },
      );
      expect(res.status).toBe(200);
      const user = (await get(server, `/management/v1/users/${res.body.userId}`, { headers: { [ORG]: foreign } })).body
        .user;
      expect(user).toMatchObject({
        state: 'USER_STATE_ACTIVE',
        machine: { name: 'Bot', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT', hasSecret: false },
      });
      expect(
        (await post(server, '/management/v1/users/machine', { userName: name('bot2'), name: 'Bot' })).body.details
          .resourceOwner,
      ).toBe(home);
      expect(
        (
          await post(
            server,
            '/management/v1/users/machine',
            { userName: name('bot3'), name: 'Bot' },
            { token: homeOwner.token, headers: { [ORG]: foreign } },
          )
        ).status,
      ).toBe(403);
    });
  });

  describe('ListUsers', () => {
    it('lists the users of the header’s organization only', async () => {
      const inForeign = await post(server, '/management/v1/users/_search', {}, { headers: { [ORG]: foreign } });
      expect(inForeign.status).toBe(200);
      expect(inForeign.body.result.length).toBeGreaterThan(0);
      expect(inForeign.body.result.every((u: any) => u.details.resourceOwner === foreign)).toBe(true);
      expect(Number(inForeign.body.details.totalResult)).toBe(inForeign.body.result.length);
      const inHome = await post(server, '/management/v1/users/_search', {
        queries: [{ userNameQuery: { userName: name('grace'), method: 'TEXT_QUERY_METHOD_EQUALS' } }],
      });
      expect(inHome.body.result.map((u: any) => u.userName)).toEqual([name('grace')]);
      const notThere = await post(server, '/management/v1/users/_search', {
        queries: [{ userNameQuery: { userName: name('linus') } }],
      });
      expect(notThere.body.result).toEqual([]);
      expect(
        (
          await post(
            server,
            '/management/v1/users/_search',
            {},
            { token: homeOwner.token, headers: { [ORG]: foreign } },
          )
        ).status,
      ).toBe(403);
    });
  });

  describe('AddOrg, GetMyOrg', () => {
    it('adds an organization with the caller as its owner, and reads the header’s organization', async () => {
      const added = await post(server, '/management/v1/orgs', { name: name('Added') });
      expect(added.status).toBe(200);
      expect(added.body).toEqual({
        id: expect.any(String),
        details: { sequence: expect.any(String), creationDate: expect.any(String), resourceOwner: added.body.id },
      });
      const mine = await get(server, '/management/v1/orgs/me', { headers: { [ORG]: added.body.id } });
      expect(mine.body.org).toMatchObject({
        id: added.body.id,
        name: name('Added'),
        state: 'ORG_STATE_ACTIVE',
        primaryDomain: expect.any(String),
      });
      const own = await get(server, '/management/v1/orgs/me', { token: homeOwner.token });
      expect(own.body.org.id).toBe(home);
      expect(
        (await get(server, '/management/v1/orgs/me', { token: homeOwner.token, headers: { [ORG]: foreign } })).status,
      ).toBe(403);
      expect(
        (await post(server, '/management/v1/orgs', { name: name('Nope') }, { token: homeOwner.token })).status,
      ).toBe(403);
    });
  });

  describe('projects and applications', () => {
    let projectId: string;
    beforeAll(async () => {
      const res = await post(
        server,
        '/management/v1/projects',
        { name: name('Portal'), projectRoleCheck: true },
        { headers: { [ORG]: foreign } },
      );
      expect(res.status).toBe(200);
      projectId = res.body.id;
    });

    it('AddProject and ListProjects work in the header’s organization', async () => {
      const listed = await post(server, '/management/v1/projects/_search', {}, { headers: { [ORG]: foreign } });
      expect(listed.body.result).toContainEqual(
        expect.objectContaining({
          id: projectId,
          name: name('Portal'),
          state: 'PROJECT_STATE_ACTIVE',
          projectRoleCheck: true,
        }),
      );
      const home_ = await post(server, '/management/v1/projects/_search', {});
      expect(home_.body.result.map((p: any) => p.id)).not.toContain(projectId);
      const inHome = await post(server, '/management/v1/projects', { name: name('Home project') });
      expect(inHome.body.details.resourceOwner).toBe(home);
      expect((await post(server, '/management/v1/projects/_search', {})).body.result.map((p: any) => p.id)).toContain(
        inHome.body.id,
      );
      expect(
        (
          await post(
            server,
            '/management/v1/projects',
            { name: 'x' },
            { token: homeOwner.token, headers: { [ORG]: foreign } },
          )
        ).status,
      ).toBe(403);
      expect(
        (
          await post(
            server,
            '/management/v1/projects/_search',
            {},
            { token: homeOwner.token, headers: { [ORG]: foreign } },
          )
        ).status,
      ).toBe(403);
    });

    it('ListGrantedProjects lists projects granted to the organization', async () => {
      await createProjectGrant(systemCtx(server), { projectId, grantedOrgId: home, roleKeys: [] });
      const granted = await post(server, '/management/v1/granted_projects/_search', {}, { token: homeOwner.token });
      expect(granted.status).toBe(200);
      expect(granted.body.result).toContainEqual(
        expect.objectContaining({
          projectId,
          projectName: name('Portal'),
          grantedOrgId: home,
          projectOwnerId: foreign,
        }),
      );
      const owned = await post(server, '/management/v1/projects/_search', {}, { token: homeOwner.token });
      expect(owned.body.result.map((p: any) => p.id)).not.toContain(projectId);
      const inForeign = await post(
        server,
        '/management/v1/granted_projects/_search',
        {},
        { headers: { [ORG]: foreign } },
      );
      expect(inForeign.body.result.map((p: any) => p.projectId)).not.toContain(projectId);
      expect(
        (
          await post(
            server,
            '/management/v1/granted_projects/_search',
            {},
            { token: homeOwner.token, headers: { [ORG]: foreign } },
          )
        ).status,
      ).toBe(403);
    });

    it('AddOIDCApp, AddAPIApp and AddSAMLApp create applications of the project', async () => {
      const oidc = await post(
        server,
        `/management/v1/projects/${projectId}/apps/oidc`,
        {
          name: 'Web',
          redirectUris: ['https://app.example.com/cb'],
          responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
          grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
          appType: 'OIDC_APP_TYPE_WEB',
          authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
          clockSkew: '1s',
        },
        { headers: { [ORG]: foreign } },
      );
      expect(oidc.status).toBe(200);
      expect(oidc.body).toMatchObject({
        appId: expect.any(String),
        clientId: expect.any(String),
        clientSecret: expect.any(String),
        noneCompliant: false,
        details: { resourceOwner: foreign },
      });
      const api = await post(
        server,
        `/management/v1/projects/${projectId}/apps/api`,
        { name: 'API', authMethodType: 'API_AUTH_METHOD_TYPE_BASIC' },
        { headers: { [ORG]: foreign } },
      );
      expect(api.status).toBe(200);
      expect(api.body).toMatchObject({
        appId: expect.any(String),
        clientId: expect.any(String),
        clientSecret: expect.any(String),
      });
      const xml = [
        '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example.com">',
        '<SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
        '<AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"',
        ' Location="https://sp.example.com/acs" index="0"/>',
        '</SPSSODescriptor></EntityDescriptor>',
      ].join('');
      const saml = await post(
        server,
        `/management/v1/projects/${projectId}/apps/saml`,
        { name: 'SAML', metadataXml: Buffer.from(xml).toString('base64') },
        { headers: { [ORG]: foreign } },
      );
      expect(saml.status, JSON.stringify(saml.body)).toBe(200);
      expect(saml.body).toEqual({
        appId: expect.any(String),
        details: expect.objectContaining({ resourceOwner: foreign }),
      });
    });

    it('refuses applications of a project outside the header’s organization', async () => {
      const wrongOrg = await post(server, `/management/v1/projects/${projectId}/apps/api`, { name: 'API' });
      expect(wrongOrg.status).toBe(404);
      const denied = await post(
        server,
        `/management/v1/projects/${projectId}/apps/api`,
        { name: 'API' },
        { token: homeOwner.token, headers: { [ORG]: foreign } },
      );
      expect(denied.status).toBe(403);
      const badEnum = await post(
        server,
        `/management/v1/projects/${projectId}/apps/oidc`,
        { name: 'X', appType: 'OIDC_APP_TYPE_TOASTER' },
        { headers: { [ORG]: foreign } },
      );
      expect(badEnum.status).toBe(400);
      expect(badEnum.body.message).toMatch(/appType/);
    });
  });

  it('answers unknown v1 paths with a v1 404', async () => {
    const res = await post(server, '/management/v1/nothing/here', {});
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 5, message: expect.stringContaining('/management/v1/nothing/here'), details: [] });
  });

  describe('GET /auth/v1/users/me', () => {
    it('returns the caller', async () => {
      const me = await get(server, '/auth/v1/users/me', { token: homeOwner.token });
      expect(me.status).toBe(200);
      expect(me.body.user).toMatchObject({
        id: homeOwner.userId,
        state: 'USER_STATE_ACTIVE',
        machine: { name: 'v1 test' },
        details: { resourceOwner: home },
      });
      expect((await get(server, '/auth/v1/users/me', { token: null })).status).toBe(401);
    });
  });
});
