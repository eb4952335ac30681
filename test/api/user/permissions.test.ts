import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { startTestServer, type TestServer } from '../../helpers/server';
import { systemCtx } from '../../helpers/context';
import { eventsOf } from '../../helpers/events';
import { addMachineWithToken } from '../../helpers/machines';
import { addOrg } from '../../helpers/orgs';

describe('UserService permissions', () => {
  let server: TestServer;
  let orgA: string;
  let orgB: string;
  let adminA: { userId: string; token: string };
  let plainA: { userId: string; token: string };
  let userB: string;
  let machineB: string;

  const humanIn = (organizationId: string, username: string) => ({
    organizationId,
    username,
    userType: {
      case: 'human' as const,
      value: {
        profile: { givenName: 'P', familyName: 'Q' },
        email: { email: `${username}@example.com`, verification: { case: 'isVerified' as const, value: true } },
      },
    },
  });

  beforeAll(async () => {
    server = await startTestServer();
    orgA = (await addOrg(server, 'Perm Org A')).id;
    orgB = (await addOrg(server, 'Perm Org B')).id;
    adminA = await addMachineWithToken(server, orgA, { username: 'admin-a', roles: ['ORG_OWNER'] });
    plainA = await addMachineWithToken(server, orgA, { username: 'plain-a' });
    const iam = server.client(UserService);
    userB = (await iam.createUser(humanIn(orgB, 'user-b'))).id;
    machineB = (
      await iam.createUser({
        organizationId: orgB,
        username: 'machine-b',
        userType: { case: 'machine', value: { name: 'B' } },
      })
    ).id;
  });
  afterAll(() => server?.stop());

  it('an org admin manages users of its own organization', async () => {
    const users = server.client(UserService, { token: adminA.token });
    const { id } = await users.createUser(humanIn(orgA, 'made-by-a'));
    await users.lockUser({ userId: id });
    await users.setUserMetadata({ userId: id, metadata: [{ key: 'k', value: new Uint8Array([1]) }] });
    await users.deleteUser({ userId: id });
    const evs = await eventsOf(server, id);
    expect(evs.every((e) => e.editorUserId === adminA.userId && e.resourceOwner === orgA)).toBe(true);
  });

  it('an org admin of A cannot read, list, change or delete users of B (NOT_FOUND, never data)', async () => {
    for (const protocol of ['connect', 'grpc'] as const) {
      const users = server.client(UserService, { token: adminA.token, protocol });
      const calls: [string, () => Promise<unknown>][] = [
        ['getUserByID', () => users.getUserByID({ userId: userB })],
        ['updateUser', () => users.updateUser({ userId: userB, username: 'stolen' })],
        ['lockUser', () => users.lockUser({ userId: userB })],
        ['deactivateUser', () => users.deactivateUser({ userId: userB })],
        ['deleteUser', () => users.deleteUser({ userId: userB })],
        ['setPassword', () => users.setPassword({ userId: userB, newPassword: { password: 'Hijack-Passw0rd' } })],
        ['passwordReset', () => users.passwordReset({ userId: userB, medium: { case: 'returnCode', value: {} } })],
        [
          'setEmail',
          () =>
            users.setEmail({ userId: userB, email: 'x@example.com', verification: { case: 'returnCode', value: {} } }),
        ],
        [
          'createInviteCode',
          () => users.createInviteCode({ userId: userB, verification: { case: 'returnCode', value: {} } }),
        ],
        ['listUserMetadata', () => users.listUserMetadata({ userId: userB })],
        [
          'setUserMetadata',
          () => users.setUserMetadata({ userId: userB, metadata: [{ key: 'k', value: new Uint8Array([1]) }] }),
        ],
        ['addSecret', () => users.addSecret({ userId: machineB })],
        ['addKey', () => users.addKey({ userId: machineB })],
        ['listKeys', () => users.listKeys({ userId: machineB })],
        ['addPersonalAccessToken', () => users.addPersonalAccessToken({ userId: machineB })],
        ['listPersonalAccessTokens', () => users.listPersonalAccessTokens({ userId: machineB })],
        ['createUser in B', () => users.createUser(humanIn(orgB, 'sneaky'))],
      ];
      for (const [name, call] of calls) {
        const err = await call().then(
          () => undefined,
          (e) => e,
        );
        expect(err?.code, `${protocol} ${name}`).toBe(Code.NotFound);
      }
      const list = await users.listUsers({});
      expect(list.result.every((u) => u.organizationId === orgA)).toBe(true);
      expect(list.result.map((u) => u.userId)).toContain(plainA.userId);
      const listB = await users.listUsers({
        filters: [{ filter: { case: 'organizationIdFilter', value: { organizationId: orgB } } }],
      });
      expect(listB.result).toHaveLength(0);
      expect(Number(listB.pagination?.totalResult)).toBe(0);
    }
    expect((await eventsOf(server, userB)).map((e) => e.eventType)).toEqual(['user.human.added']);
  });

  it('a locked or deleted user can no longer call the API with its token', async () => {
    const victim = await addMachineWithToken(server, orgA, { username: 'soon-locked' });
    const asVictim = server.client(UserService, { token: victim.token });
    expect((await asVictim.getUserByID({ userId: victim.userId })).user?.userId).toBe(victim.userId);
    await server.client(UserService, { token: adminA.token }).lockUser({ userId: victim.userId });
    expect((await asVictim.getUserByID({ userId: victim.userId }).catch((e) => e)).code).toBe(Code.Unauthenticated);
    await server.client(UserService, { token: adminA.token }).unlockUser({ userId: victim.userId });
    expect((await asVictim.getUserByID({ userId: victim.userId })).user?.userId).toBe(victim.userId);
    await server.client(UserService, { token: adminA.token }).deleteUser({ userId: victim.userId });
    expect((await asVictim.getUserByID({ userId: victim.userId }).catch((e) => e)).code).toBe(Code.Unauthenticated);
  });

  it('an instance admin sees users of every organization', async () => {
    const list = await server
      .client(UserService)
      .listUsers({ filters: [{ filter: { case: 'inUserIdsFilter', value: { userIds: [userB, plainA.userId] } } }] });
    expect(list.result.map((u) => u.userId).sort()).toEqual([userB, plainA.userId].sort());
  });

  it('a user without roles reads and lists only itself and may not change others', async () => {
    const users = server.client(UserService, { token: plainA.token });
    expect((await users.getUserByID({ userId: plainA.userId })).user?.username).toBe('plain-a');
    const list = await users.listUsers({});
    expect(list.result.map((u) => u.userId)).toEqual([plainA.userId]);
    expect(Number(list.pagination?.totalResult)).toBe(1);
    expect((await users.getUserByID({ userId: adminA.userId }).catch((e) => e)).code).toBe(Code.NotFound);
    expect((await users.createUser(humanIn(orgA, 'by-plain')).catch((e) => e)).code).toBe(Code.NotFound);
    // It may see itself but not change its own state or credentials.
    expect((await users.lockUser({ userId: plainA.userId }).catch((e) => e)).code).toBe(Code.PermissionDenied);
    expect((await users.addPersonalAccessToken({ userId: plainA.userId }).catch((e) => e)).code).toBe(
      Code.PermissionDenied,
    );
  });

  it('a human changes its own password (with the current one) and email, but nobody else’s', async () => {
    const iam = server.client(UserService);
    const self = await iam.createUser({
      organizationId: orgA,
      username: 'self-human',
      userType: {
        case: 'human',
        value: {
          profile: { givenName: 'S', familyName: 'H' },
          email: { email: 'self@example.com', verification: { case: 'isVerified', value: true } },
          passwordType: { case: 'password', value: { password: 'Mine-Passw0rd' } },
        },
      },
    });
    // Humans get tokens from the OIDC layer; here the token comes from a PAT on the same principal path.
    const { addPersonalAccessToken } = await import('../../../src/domain/user/personal-access-tokens');
    const { execute } = await import('../../../src/domain/execute');
    const { token } = await execute(systemCtx(server), (scope) =>
      addPersonalAccessToken(scope, { userId: self.id, orgId: orgA }),
    );
    const users = server.client(UserService, { token });
    const noProof = await users
      .setPassword({ userId: self.id, newPassword: { password: 'Next-Passw0rd' } })
      .catch((e) => e);
    expect(noProof.code).toBe(Code.InvalidArgument);
    await users.setPassword({
      userId: self.id,
      newPassword: { password: 'Next-Passw0rd' },
      verification: { case: 'currentPassword', value: 'Mine-Passw0rd' },
    });
    // the code goes to the new address; only administrators may have it returned
    const email = await users.setEmail({
      userId: self.id,
      email: 'self2@example.com',
      verification: { case: 'sendCode', value: {} },
    });
    expect(email.verificationCode).toBeUndefined();
    expect(
      (
        await users
          .setEmail({ userId: self.id, email: 'self2@example.com', verification: { case: 'returnCode', value: {} } })
          .catch((e) => e)
      ).code,
    ).toBe(Code.PermissionDenied);
    expect(
      (
        await users
          .setEmail({ userId: self.id, email: 'self3@example.com', verification: { case: 'isVerified', value: true } })
          .catch((e) => e)
      ).code,
    ).toBe(Code.PermissionDenied);
    expect(
      (await users.setPassword({ userId: plainA.userId, newPassword: { password: 'Other-Passw0rd' } }).catch((e) => e))
        .code,
    ).toBe(Code.NotFound);
  });
});
