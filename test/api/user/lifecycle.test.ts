import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TextFilterMethod } from '../../../gen/portcullis/object/v2/object_pb';
import { UserState, UserType } from '../../../gen/portcullis/user/v2/user_pb';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { startTestServer, type TestServer } from '../../helpers/server';
import { defaultOrgId } from '../../helpers/context';
import { eventsOf } from '../../helpers/events';
import { addOrg } from '../../helpers/orgs';

describe('user lifecycle and listing', () => {
  let server: TestServer;
  let orgId: string;
  let otherOrg: { id: string; primaryDomain: string };
  const human = (orgId: string, username: string, given = 'Test') => ({
    organizationId: orgId,
    username,
    userType: {
      case: 'human' as const,
      value: {
        profile: { givenName: given, familyName: 'User' },
        email: { email: `${username}@example.com`, verification: { case: 'isVerified' as const, value: true } },
      },
    },
  });

  beforeAll(async () => {
    server = await startTestServer();
    orgId = await defaultOrgId(server);
    otherOrg = await addOrg(server, 'Lifecycle Other');
  });
  afterAll(() => server?.stop());

  it('updates profile, username and machine fields with one event per change', async () => {
    const users = server.client(UserService);
    const { id } = await users.createUser(human(orgId, 'upd-1'));
    const res = await users.updateUser({
      userId: id,
      username: 'upd-renamed',
      userType: { case: 'human', value: { profile: { givenName: 'Renamed', displayName: 'R. User' } } },
    });
    expect(res.changeDate).toBeDefined();
    const { user } = await users.getUserByID({ userId: id });
    expect(user?.username).toBe('upd-renamed');
    expect(user?.type.case === 'human' && user.type.value.profile).toMatchObject({
      givenName: 'Renamed',
      familyName: 'User',
      displayName: 'R. User',
    });
    const types = (await eventsOf(server, id)).map((e) => e.eventType);
    expect(types).toEqual(['user.human.added', 'user.username.changed', 'user.human.changed']);

    const machine = await users.createUser({
      organizationId: orgId,
      username: 'upd-machine',
      userType: { case: 'machine', value: { name: 'M' } },
    });
    await users.updateUser({
      userId: machine.id,
      userType: { case: 'machine', value: { description: 'now described' } },
    });
    const m = await users.getUserByID({ userId: machine.id });
    expect(m.user?.type).toMatchObject({ case: 'machine', value: { name: 'M', description: 'now described' } });
    const wrongType = await users
      .updateUser({ userId: machine.id, userType: { case: 'human', value: { profile: { givenName: 'x' } } } })
      .catch((e) => e);
    expect(wrongType.code).toBe(Code.InvalidArgument);
  });

  it('locks, unlocks, deactivates, reactivates with their events; bad transitions: FAILED_PRECONDITION', async () => {
    const users = server.client(UserService, { protocol: 'grpc' });
    const { id } = await users.createUser(human(orgId, 'state-1'));
    await users.lockUser({ userId: id });
    expect((await users.getUserByID({ userId: id })).user?.state).toBe(UserState.LOCKED);
    expect((await users.lockUser({ userId: id }).catch((e) => e)).code).toBe(Code.FailedPrecondition);
    await users.unlockUser({ userId: id });
    await users.deactivateUser({ userId: id });
    expect((await users.getUserByID({ userId: id })).user?.state).toBe(UserState.INACTIVE);
    expect((await users.deactivateUser({ userId: id }).catch((e) => e)).code).toBe(Code.FailedPrecondition);
    await users.reactivateUser({ userId: id });
    expect((await users.getUserByID({ userId: id })).user?.state).toBe(UserState.ACTIVE);
    expect((await users.unlockUser({ userId: id }).catch((e) => e)).code).toBe(Code.FailedPrecondition);
    const evs = await eventsOf(server, id);
    expect(evs.map((e) => e.eventType)).toEqual([
      'user.human.added',
      'user.locked',
      'user.unlocked',
      'user.deactivated',
      'user.reactivated',
    ]);
    expect(evs.every((e) => e.resourceOwner === orgId)).toBe(true);
  });

  it('deletes a user: gone from reads and lists, username free again, deleting again succeeds', async () => {
    const users = server.client(UserService);
    const totalOf = async () =>
      Number(
        (
          await users.listUsers({
            filters: [{ filter: { case: 'organizationIdFilter', value: { organizationId: orgId } } }],
          })
        ).pagination?.totalResult,
      );
    const before = await totalOf();
    const { id } = await users.createUser(human(orgId, 'del-me'));
    expect(await totalOf()).toBe(before + 1);
    const res = await users.deleteUser({ userId: id });
    expect(await totalOf()).toBe(before);
    expect(res.deletionDate).toBeDefined();
    expect((await users.getUserByID({ userId: id }).catch((e) => e)).code).toBe(Code.NotFound);
    const list = await users.listUsers({
      filters: [{ filter: { case: 'inUserIdsFilter', value: { userIds: [id] } } }],
    });
    expect(list.result).toHaveLength(0);
    await users.deleteUser({ userId: id });
    expect((await eventsOf(server, id, 'user.removed')).length).toBe(1);
    expect(await totalOf()).toBe(before);
    const again = await users.createUser(human(orgId, 'del-me'));
    expect(await totalOf()).toBe(before + 1);
    // The totals of unfiltered and filtered lists agree with the rows.
    const all = await users.listUsers({ pagination: { limit: 1000 } });
    expect(Number(all.pagination?.totalResult)).toBe(all.result.length);
    expect(again.id).not.toBe(id);
    expect((await users.deleteUser({ userId: '424242' }).catch((e) => e)).code).toBe(Code.NotFound);
  });

  it('keeps organization totals exact when the per-organization count deltas are folded', async () => {
    const users = server.client(UserService);
    const totalOf = async () =>
      Number(
        (
          await users.listUsers({
            filters: [{ filter: { case: 'organizationIdFilter', value: { organizationId: orgId } } }],
          })
        ).pagination?.totalResult,
      );
    const before = await totalOf();
    const { compactUserCounts } = await import('../../../src/domain/user/counts');
    await compactUserCounts(server.app.database.db);
    const rows = await server.app.database.db.query.userCounts.findMany({ where: (c, { eq }) => eq(c.orgId, orgId) });
    expect(rows).toHaveLength(1);
    expect(await totalOf()).toBe(before);
    const real = await users.listUsers({
      filters: [
        { filter: { case: 'organizationIdFilter', value: { organizationId: orgId } } },
        {
          filter: {
            case: 'notFilter',
            value: { filter: { filter: { case: 'inUserIdsFilter', value: { userIds: [] } } } },
          },
        },
      ],
    });
    expect(Number(real.pagination?.totalResult)).toBe(before);
  });

  it('lists with filters, and/or/not, pagination and total', async () => {
    const users = server.client(UserService);
    for (let i = 0; i < 5; i++) await users.createUser(human(otherOrg.id, `list-${i}`, i % 2 ? 'Odd' : 'Even'));
    await users.createUser({
      organizationId: otherOrg.id,
      username: 'list-machine',
      userType: { case: 'machine', value: { name: 'Lister' } },
    });
    const byOrg = (extra: object[] = [], pagination?: object) =>
      users.listUsers({
        pagination: pagination as never,
        filters: [
          { filter: { case: 'organizationIdFilter', value: { organizationId: otherOrg.id } } },
          ...(extra as never[]),
        ],
      });

    const all = await byOrg();
    expect(Number(all.pagination?.totalResult)).toBe(6);
    expect(Number(all.pagination?.appliedLimit)).toBe(100);

    const page = await byOrg([], { offset: 1n, limit: 2, asc: true });
    expect(page.result.map((u) => u.username)).toEqual(['list-1', 'list-2']);
    expect(Number(page.pagination?.totalResult)).toBe(6);
    await expect(byOrg([], { limit: 5000 })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: 'pagination.limit must be at most 1000',
    });

    const prefix = await byOrg([
      {
        filter: { case: 'usernameFilter', value: { value: 'LIST-', method: TextFilterMethod.STARTS_WITH_IGNORE_CASE } },
      },
    ]);
    expect(prefix.result).toHaveLength(6);
    const machines = await byOrg([{ filter: { case: 'typeFilter', value: { type: UserType.MACHINE } } }]);
    expect(machines.result.map((u) => u.username)).toEqual(['list-machine']);
    const odd = await byOrg([
      {
        filter: {
          case: 'displayNameFilter',
          value: { value: 'Odd User', method: TextFilterMethod.EQUALS_UNSPECIFIED },
        },
      },
    ]);
    expect(odd.result.map((u) => u.username).sort()).toEqual(['list-1', 'list-3']);
    const email = await byOrg([
      {
        filter: {
          case: 'emailFilter',
          value: { value: 'LIST-4@EXAMPLE.COM', method: TextFilterMethod.EQUALS_IGNORE_CASE },
        },
      },
    ]);
    expect(email.result.map((u) => u.username)).toEqual(['list-4']);
    const login = await users.listUsers({
      filters: [{ filter: { case: 'loginNameFilter', value: { loginName: `list-2@${otherOrg.primaryDomain}` } } }],
    });
    expect(login.result.map((u) => u.username)).toEqual(['list-2']);
    expect(login.result[0].loginNames).toEqual([`list-2@${otherOrg.primaryDomain}`]);
    expect(login.result[0].preferredLoginName).toBe(`list-2@${otherOrg.primaryDomain}`);
    const orNot = await byOrg([
      {
        filter: {
          case: 'orFilter',
          value: {
            filters: [
              { filter: { case: 'usernameFilter', value: { value: 'list-0' } } },
              {
                filter: {
                  case: 'notFilter',
                  value: { filter: { filter: { case: 'stateFilter', value: { state: UserState.ACTIVE } } } },
                },
              },
            ],
          },
        },
      },
    ]);
    expect(orNot.result.map((u) => u.username)).toEqual(['list-0']);
    const and = await byOrg([
      {
        filter: {
          case: 'andFilter',
          value: {
            filters: [
              { filter: { case: 'typeFilter', value: { type: UserType.HUMAN } } },
              { filter: { case: 'usernameFilter', value: { value: '-3', method: TextFilterMethod.CONTAINS } } },
            ],
          },
        },
      },
    ]);
    expect(and.result.map((u) => u.username)).toEqual(['list-3']);
    const empty = await users.listUsers({ filters: [{}] }).catch((e) => e);
    expect(empty.code).toBe(Code.InvalidArgument);
  });
});
