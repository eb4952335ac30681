import { type Client, Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityProviderService } from '../../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { SessionService } from '../../../gen/portcullis/session/v2/session_service_pb';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { addAdministrator } from '../../../src/domain/administrator/commands';
import { execute } from '../../../src/domain/execute';
import { systemCtx } from '../../helpers/context';
import { eventsOf, eventsSince, lastPosition } from '../../helpers/events';
import { addRelyingParty, codeFlowTokens } from '../../helpers/login-flow';
import { addMachineWithToken } from '../../helpers/machines';
import { addOrg } from '../../helpers/orgs';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addUser } from '../../helpers/users';
import { finishedIntent, ldapConfig, oidcConfig } from './fixtures';

const codeOf = (p: Promise<unknown>): Promise<Code | 'ok'> =>
  p.then(
    () => 'ok' as const,
    (e) => ConnectError.from(e).code,
  );

const refusal = (p: Promise<unknown>): Promise<{ code: Code; message: string }> =>
  p.then(
    () => ({ code: Code.Unknown, message: 'it succeeded' }),
    (e) => ({ code: ConnectError.from(e).code, message: ConnectError.from(e).rawMessage }),
  );

const API_SCOPE = 'openid urn:service:iam:org:project:id:api:aud';

describe('UserService identity-provider links and intents', () => {
  let server: TestServer;
  let users: Client<typeof UserService>;
  let idps: Client<typeof IdentityProviderService>;
  let orgA: string;
  let orgB: string;
  /** providers: the instance's, org A's, org B's */
  let shared: string;
  let ofA: string;
  let ofB: string;
  let managerA: Client<typeof UserService>;

  beforeAll(async () => {
    server = await startTestServer();
    users = server.client(UserService);
    idps = server.client(IdentityProviderService);
    orgA = (await addOrg(server, 'Links A')).id;
    orgB = (await addOrg(server, 'Links B')).id;
    shared = (await idps.createIdentityProvider({ name: 'Shared', config: oidcConfig() })).id;
    ofA = (await idps.createIdentityProvider({ organizationId: orgA, name: 'A dir', config: ldapConfig() })).id;
    ofB = (await idps.createIdentityProvider({ organizationId: orgB, name: 'B', config: oidcConfig() })).id;
    const m = await addMachineWithToken(server, orgA, { roles: ['ORG_USER_MANAGER'] });
    managerA = server.client(UserService, { token: m.token });
  });
  afterAll(() => server?.stop());

  it('an administrator links upstream accounts; the links are listed and each is an event', async () => {
    const user = await addUser(server, { orgId: orgA });
    await users.addIDPLink({ userId: user.id, idpLink: { idpId: shared, userId: 'sub-100', userName: 'ada@up' } });
    await managerA.addIDPLink({ userId: user.id, idpLink: { idpId: ofA, userId: 'uid=ada' } });
    const list = await users.listIDPLinks({ userId: user.id });
    expect(list.result.map((l) => ({ idpId: l.idpId, userId: l.userId, userName: l.userName }))).toEqual(
      expect.arrayContaining([
        { idpId: shared, userId: 'sub-100', userName: 'ada@up' },
        { idpId: ofA, userId: 'uid=ada', userName: '' },
      ]),
    );
    expect(list.pagination?.totalResult).toBe(2n);
    const added = await eventsOf(server, user.id, 'user.human.idp.link.added');
    expect(added.map((e) => e.payload)).toEqual([
      expect.objectContaining({ idpId: shared, externalUserId: 'sub-100' }),
      expect.objectContaining({ idpId: ofA, externalUserId: 'uid=ada' }),
    ]);
  });

  it('one upstream account belongs to one user: linking it again is ALREADY_EXISTS', async () => {
    const first = await addUser(server, { orgId: orgA });
    const second = await addUser(server, { orgId: orgA });
    await users.addIDPLink({ userId: first.id, idpLink: { idpId: shared, userId: 'sub-dup' } });
    expect(await codeOf(users.addIDPLink({ userId: second.id, idpLink: { idpId: shared, userId: 'sub-dup' } }))).toBe(
      Code.AlreadyExists,
    );
    expect(await codeOf(users.addIDPLink({ userId: first.id, idpLink: { idpId: shared, userId: 'sub-dup' } }))).toBe(
      Code.AlreadyExists,
    );
    expect((await users.listIDPLinks({ userId: second.id })).result).toEqual([]);
  });

  it("another organization's provider cannot be linked: NOT_FOUND", async () => {
    const user = await addUser(server, { orgId: orgA });
    expect(await codeOf(users.addIDPLink({ userId: user.id, idpLink: { idpId: ofB, userId: 'x' } }))).toBe(
      Code.NotFound,
    );
    expect(await codeOf(users.addIDPLink({ userId: user.id, idpLink: { idpId: 'nope', userId: 'x' } }))).toBe(
      Code.NotFound,
    );
    const missing = await refusal(users.addIDPLink({ userId: user.id, idpLink: { idpId: shared, userId: '' } }));
    expect(missing.code).toBe(Code.InvalidArgument);
    expect(missing.message).toContain('idp_link.user_id');
  });

  it('a user manager cannot link an account to a user who holds more than it (an instance owner)', async () => {
    const owner = await addUser(server, { orgId: orgA });
    await execute(systemCtx(server), (work) =>
      addAdministrator(work, {
        userId: owner.id,
        resourceType: 'INSTANCE',
        resourceId: server.app.deps.instanceId,
        resourceOwner: server.app.deps.instanceId,
        roles: ['IAM_OWNER'],
      }),
    );
    const code = await codeOf(managerA.addIDPLink({ userId: owner.id, idpLink: { idpId: shared, userId: 'mine' } }));
    expect(code).toBe(Code.PermissionDenied);
    expect((await users.listIDPLinks({ userId: owner.id })).result).toEqual([]);
  });

  it("a user manager cannot link an account to another organization's user", async () => {
    const foreign = await addUser(server, { orgId: orgB });
    expect(await codeOf(managerA.addIDPLink({ userId: foreign.id, idpLink: { idpId: shared, userId: 'evil' } }))).toBe(
      Code.NotFound,
    );
    expect(await codeOf(managerA.listIDPLinks({ userId: foreign.id }))).toBe(Code.NotFound);
    expect((await users.listIDPLinks({ userId: foreign.id })).result).toEqual([]);
  });

  it('a user lists and removes its own links but cannot add one, nor touch another user', async () => {
    const me = await addUser(server, { orgId: orgA });
    const other = await addUser(server, { orgId: orgA });
    await users.addIDPLink({ userId: me.id, idpLink: { idpId: shared, userId: 'sub-me' } });
    await users.addIDPLink({ userId: other.id, idpLink: { idpId: shared, userId: 'sub-other' } });
    const config = await addRelyingParty(server, { basicAuth: true, apiClient: true });
    const { tokens } = await codeFlowTokens(server, config, me, { scope: API_SCOPE });
    const self = server.client(UserService, { token: tokens.access_token });

    // adding a way to sign in as oneself needs user.write
    expect(await codeOf(self.addIDPLink({ userId: me.id, idpLink: { idpId: shared, userId: 'sub-mine-2' } }))).toBe(
      Code.PermissionDenied,
    );
    expect((await self.listIDPLinks({ userId: me.id })).result.map((l) => l.userId)).toEqual(['sub-me']);
    expect(await codeOf(self.listIDPLinks({ userId: other.id }))).toBe(Code.NotFound);
    expect(await codeOf(self.removeIDPLink({ userId: other.id, idpId: shared, linkedUserId: 'sub-other' }))).toBe(
      Code.NotFound,
    );
    expect((await users.listIDPLinks({ userId: other.id })).result).toHaveLength(1);

    const position = await lastPosition(server);
    await self.removeIDPLink({ userId: me.id, idpId: shared, linkedUserId: 'sub-me' });
    expect((await self.listIDPLinks({ userId: me.id })).result).toEqual([]);
    expect(await codeOf(self.removeIDPLink({ userId: me.id, idpId: shared, linkedUserId: 'sub-me' }))).toBe(
      Code.NotFound,
    );
    const events = await eventsSince(server, position);
    expect(events.map((e) => [e.eventType, e.aggregateId])).toEqual([['user.human.idp.link.removed', me.id]]);
  });

  it("deleting a provider removes every user's link to it", async () => {
    const { id } = await idps.createIdentityProvider({ organizationId: orgA, name: 'Going', config: oidcConfig() });
    const one = await addUser(server, { orgId: orgA });
    const two = await addUser(server, { orgId: orgA });
    await users.addIDPLink({ userId: one.id, idpLink: { idpId: id, userId: 'g-1' } });
    await users.addIDPLink({ userId: two.id, idpLink: { idpId: id, userId: 'g-2' } });
    await users.addIDPLink({ userId: two.id, idpLink: { idpId: shared, userId: 'stays' } });
    const position = await lastPosition(server);
    await idps.deleteIdentityProvider({ id });
    expect((await users.listIDPLinks({ userId: one.id })).result).toEqual([]);
    expect((await users.listIDPLinks({ userId: two.id })).result.map((l) => l.userId)).toEqual(['stays']);
    expect(await codeOf(idps.getIdentityProvider({ id }))).toBe(Code.NotFound);
    // and the deleted provider cannot be linked again
    expect(await codeOf(users.addIDPLink({ userId: one.id, idpLink: { idpId: id, userId: 'g-1' } }))).toBe(
      Code.NotFound,
    );
    const types = (await eventsSince(server, position)).map((e) => e.eventType).sort();
    expect(types).toEqual(['org.idp.removed', 'user.human.idp.link.removed', 'user.human.idp.link.removed']);
  });

  describe('intents for a custom login UI', () => {
    it('only a login UI (user.write on the instance) starts or retrieves one', async () => {
      const plain = await addMachineWithToken(server, orgA);
      const attackers = [managerA, server.client(UserService, { token: plain.token })];
      const intent = await finishedIntent(server, shared, { id: 'sub-ui', emailVerified: false, raw: {} });
      for (const as of attackers) {
        expect(
          await codeOf(
            as.startIdentityProviderIntent({
              idpId: shared,
              content: {
                case: 'urls',
                value: { successUrl: 'https://ui.example/ok', failureUrl: 'https://ui.example/no' },
              },
            }),
          ),
        ).toBe(Code.PermissionDenied);
        expect(
          await codeOf(
            as.startIdentityProviderIntent({
              idpId: ofA,
              content: { case: 'ldap', value: { username: 'ada', password: 'guess' } },
            }),
          ),
        ).toBe(Code.PermissionDenied);
        // even holding the token: the intent is for the login UI only
        expect(
          await codeOf(
            as.retrieveIdentityProviderIntent({ idpIntentId: intent.intentId, idpIntentToken: intent.token }),
          ),
        ).toBe(Code.PermissionDenied);
      }
      expect(
        await codeOf(
          server
            .client(UserService, { token: null })
            .retrieveIdentityProviderIntent({ idpIntentId: intent.intentId, idpIntentToken: intent.token }),
        ),
      ).toBe(Code.Unauthenticated);
    });

    it('a start names what is missing: return URLs for a redirect, an existing provider', async () => {
      const noUrls = await refusal(users.startIdentityProviderIntent({ idpId: shared }));
      expect(noUrls.code).toBe(Code.InvalidArgument);
      expect(noUrls.message).toContain('success_url');
      const badUrl = await refusal(
        users.startIdentityProviderIntent({
          idpId: shared,
          content: { case: 'urls', value: { successUrl: 'javascript:alert(1)', failureUrl: 'https://ui.example/no' } },
        }),
      );
      expect(badUrl.code).toBe(Code.InvalidArgument);
      expect(badUrl.message).toContain('success_url');
      expect(
        await codeOf(
          users.startIdentityProviderIntent({
            idpId: 'unknown',
            content: {
              case: 'urls',
              value: { successUrl: 'https://ui.example/ok', failureUrl: 'https://ui.example/no' },
            },
          }),
        ),
      ).toBe(Code.NotFound);
      const noCredentials = await refusal(users.startIdentityProviderIntent({ idpId: ofA }));
      expect(noCredentials.code).toBe(Code.InvalidArgument);
      expect(noCredentials.message).toContain('ldap');
    });

    it('retrieve answers what the upstream said; an unknown id or a wrong token is NOT_FOUND', async () => {
      const linked = await addUser(server, { orgId: orgA });
      await users.addIDPLink({ userId: linked.id, idpLink: { idpId: shared, userId: 'sub-42' } });
      const raw = { sub: 'sub-42', email: 'ada@up.example', groups: ['a', 'b'], address: { country: 'UK' } };
      const intent = await finishedIntent(
        server,
        shared,
        {
          id: 'sub-42',
          username: 'ada',
          email: 'ada@up.example',
          emailVerified: true,
          givenName: 'Ada',
          familyName: 'Lovelace',
          displayName: 'Ada L.',
          preferredLanguage: 'en',
          raw,
        },
        { accessToken: 'upstream-access', idToken: 'upstream-id' },
      );
      const got = await users.retrieveIdentityProviderIntent({
        idpIntentId: intent.intentId,
        idpIntentToken: intent.token,
      });
      expect(got.userId).toBe(linked.id);
      expect(got.idpInformation).toMatchObject({
        idpId: shared,
        userId: 'sub-42',
        userName: 'ada',
        rawInformation: raw,
      });
      // the provider does not keep tokens: none are handed out
      expect(got.idpInformation).toMatchObject({ accessToken: '', idToken: '' });
      expect(got.profile).toMatchObject({
        username: 'ada',
        email: 'ada@up.example',
        emailVerified: true,
        givenName: 'Ada',
        familyName: 'Lovelace',
        displayName: 'Ada L.',
        preferredLanguage: 'en',
        phone: '',
      });

      expect(
        await codeOf(users.retrieveIdentityProviderIntent({ idpIntentId: intent.intentId, idpIntentToken: 'wrong' })),
      ).toBe(Code.NotFound);
      expect(
        await codeOf(users.retrieveIdentityProviderIntent({ idpIntentId: intent.intentId, idpIntentToken: '' })),
      ).toBe(Code.NotFound);
      expect(
        await codeOf(users.retrieveIdentityProviderIntent({ idpIntentId: 'unknown', idpIntentToken: intent.token })),
      ).toBe(Code.NotFound);
    });

    it("a provider that keeps tokens hands the upstream's tokens to the login UI", async () => {
      const { id } = await idps.createIdentityProvider({
        name: 'Keeps tokens',
        config: oidcConfig(),
        options: { isLinkingAllowed: true, isCreationAllowed: true, storeTokens: true },
      });
      const intent = await finishedIntent(
        server,
        id,
        { id: 'sub-t', emailVerified: false, raw: {} },
        { accessToken: 'kept-access', idToken: 'kept-id', refreshToken: 'kept-refresh' },
      );
      const got = await users.retrieveIdentityProviderIntent({
        idpIntentId: intent.intentId,
        idpIntentToken: intent.token,
      });
      expect(got.userId).toBe('');
      expect(got.idpInformation).toMatchObject({ accessToken: 'kept-access', idToken: 'kept-id' });
    });

    it('a session check uses a linked intent once; the session shows the external sign-in', async () => {
      const sessions = server.client(SessionService);
      const user = await addUser(server, { orgId: orgA });
      await users.addIDPLink({ userId: user.id, idpLink: { idpId: shared, userId: 'sub-session' } });
      const intent = await finishedIntent(server, shared, { id: 'sub-session', emailVerified: true, raw: {} });
      const check = { idpIntent: { idpIntentId: intent.intentId, idpIntentToken: intent.token } };

      expect(
        await codeOf(
          sessions.createSession({ checks: { idpIntent: { idpIntentId: intent.intentId, idpIntentToken: 'bogus' } } }),
        ),
      ).toBe(Code.NotFound);
      expect(
        await codeOf(sessions.createSession({ checks: { idpIntent: { idpIntentId: 'bogus', idpIntentToken: 'x' } } })),
      ).toBe(Code.NotFound);

      const created = await sessions.createSession({ checks: check });
      const { session } = await sessions.getSession({ sessionId: created.sessionId });
      expect(session?.userId).toBe(user.id);
      expect(session?.factors?.idpIntentCheckedAt).toBeDefined();
      expect(session?.factors?.idpId).toBe(shared);
      expect(session?.factors?.passwordCheckedAt).toBeUndefined();
      expect(session?.amr).toContain('fed');

      // used up: neither another session nor a retrieve gets it again
      expect(await codeOf(sessions.createSession({ checks: check }))).toBe(Code.NotFound);
      expect(
        await codeOf(
          users.retrieveIdentityProviderIntent({ idpIntentId: intent.intentId, idpIntentToken: intent.token }),
        ),
      ).toBe(Code.NotFound);
    });
  });
});
