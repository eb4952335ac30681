import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/crypto/passwords/index';
import { startTestServer, type TestServer } from '../helpers/server';
import { human, post } from './helpers';
import { defaultOrgId } from '../helpers/context';
import { addMachineWithToken } from '../helpers/machines';

const SEARCH = '/admin/v1/events/_search';

describe('POST /admin/v1/events/_search', () => {
  let server: TestServer;
  const orgId = `900${Date.now()}`;
  let otherEditor: { userId: string; token: string };
  const bigOrgId = `901${Date.now()}`;

  beforeAll(async () => {
    server = await startTestServer();
    const hash = await hashPassword('Imported-Passw0rd');
    otherEditor = await addMachineWithToken(server, await defaultOrgId(server), {
      name: 'v1 test',
      roles: ['IAM_OWNER'],
    });
    // 3 users by the bootstrap admin, 1 by another editor, and an organization of 1,100 users.
    await post(server, '/admin/v1/import', {
      dataOrgs: {
        orgs: [
          {
            orgId,
            org: { name: `Events ${orgId}` },
            humanUsers: [1, 2, 3].map((i) => human(`${orgId}${i}`, `ev${i}x${orgId}`)),
          },
        ],
      },
    });
    await post(
      server,
      '/admin/v1/import',
      { dataOrgs: { orgs: [{ orgId, humanUsers: [human(`${orgId}4`, `ev4x${orgId}`)] }] } },
      { token: otherEditor.token },
    );
    const many = Array.from({ length: 1100 }, (_, i) =>
      human(`${bigOrgId}${i}`, `big${i}x${bigOrgId}`, { hashedPassword: { value: hash } }),
    );
    const big = await post(server, '/admin/v1/import', {
      dataOrgs: { orgs: [{ orgId: bigOrgId, org: { name: `Big ${bigOrgId}` }, humanUsers: many }] },
    });
    expect(big.body.success.orgs[0].humanUserIds).toHaveLength(1100);
  });
  afterAll(() => server?.stop());

  it('filters by event type and resource owner, newest first by default', async () => {
    const { status, body } = await post(server, SEARCH, { eventTypes: ['user.human.added'], resourceOwner: orgId });
    expect(status).toBe(200);
    expect(body.events.map((e: any) => e.aggregate.id)).toEqual([`${orgId}4`, `${orgId}3`, `${orgId}2`, `${orgId}1`]);
    const e = body.events[3];
    expect(e).toEqual({
      type: {
        type: 'user.human.added',
        localized: { key: 'EventTypes.user.human.added', localizedMessage: 'Person added' },
      },
      payload: expect.objectContaining({
        userName: `ev1x${orgId}`,
        email: `ev1x${orgId}@example.com`,
        displayName: `Ada ev1x${orgId}`,
      }),
      aggregate: {
        id: `${orgId}1`,
        type: { type: 'user', localized: { key: 'AggregateTypes.user', localizedMessage: 'User' } },
        resourceOwner: orgId,
      },
      editor: {
        userId: server.app.bootstrap.instanceId ? expect.any(String) : '',
        displayName: 'Administrator (machine)',
        service: 'admin/v1/import',
      },
      sequence: '1',
      position: expect.stringMatching(/^\d+$/),
      creationDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('orders ascending when asked', async () => {
    const { body } = await post(server, SEARCH, { asc: true, resource_owner: orgId });
    const types = body.events.map((e: any) => e.type.type);
    expect(types.slice(0, 3)).toEqual(['org.added', 'org.domain.added', 'org.domain.primary.set']);
    const positions = body.events.map((e: any) => Number(e.position));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('filters by aggregate id, aggregate type and editor', async () => {
    const byAggregate = await post(server, SEARCH, { aggregateId: `${orgId}2` });
    expect(byAggregate.body.events.map((e: any) => e.type.type)).toEqual(['user.human.added']);
    const orgOnly = await post(server, SEARCH, { aggregateTypes: ['org'], resourceOwner: orgId });
    expect(orgOnly.body.events.every((e: any) => e.aggregate.type.type === 'org')).toBe(true);
    expect(orgOnly.body.events.length).toBeGreaterThanOrEqual(3);
    const byEditor = await post(server, SEARCH, { editorUserId: otherEditor.userId, eventTypes: ['user.human.added'] });
    expect(byEditor.body.events.map((e: any) => e.aggregate.id)).toEqual([`${orgId}4`]);
    expect(byEditor.body.events[0].editor).toEqual({
      userId: otherEditor.userId,
      displayName: 'v1 test',
      service: 'admin/v1/import',
    });
  });

  it('merges several event types in position order', async () => {
    const { body } = await post(server, SEARCH, { eventTypes: ['org.added', 'user.human.added'], limit: 50 });
    expect(body.events).toHaveLength(50);
    expect(new Set(body.events.map((e: any) => e.type.type))).toEqual(new Set(['user.human.added']));
    const asc = await post(server, SEARCH, { eventTypes: ['user.human.added', 'org.added'], asc: true, limit: 3 });
    // The first start added the first organization, then its administrator.
    expect(asc.body.events.map((e: any) => e.type.type).slice(0, 2)).toEqual(['org.added', 'user.human.added']);
    const positions = asc.body.events.map((e: any) => Number(e.position));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('filters by creation date', async () => {
    const future = new Date(Date.now() + 3600_000).toISOString();
    const none = await post(server, SEARCH, { resourceOwner: orgId, creationDateFilter: { range: { since: future } } });
    expect(none.body.events).toEqual([]);
    const all = await post(server, SEARCH, {
      resourceOwner: orgId,
      creationDateFilter: { range: { since: '2000-01-01T00:00:00Z', until: future } },
    });
    expect(all.body.events.length).toBeGreaterThanOrEqual(7);
    const before = await post(server, SEARCH, {
      resourceOwner: orgId,
      creationDateFilter: { from: '2000-01-01T00:00:00Z' },
    });
    expect(before.body.events).toEqual([]);
  });

  it('returns 1,000 events by default and never more', async () => {
    const byDefault = await post(server, SEARCH, { resourceOwner: bigOrgId });
    expect(byDefault.body.events).toHaveLength(1000);
    const capped = await post(server, SEARCH, { resourceOwner: bigOrgId, limit: 5000 });
    expect(capped.body.events).toHaveLength(1000);
    const few = await post(server, SEARCH, { resourceOwner: bigOrgId, limit: 10 });
    expect(few.body.events).toHaveLength(10);
    const next = await post(server, SEARCH, {
      resourceOwner: bigOrgId,
      limit: 10,
      position: few.body.events[9].position,
    });
    expect(Number(next.body.events[0].position)).toBeLessThan(Number(few.body.events[9].position));
  });

  it('localizes type names in German by Accept-Language', async () => {
    const { body } = await post(
      server,
      SEARCH,
      { aggregateId: `${orgId}1` },
      { headers: { 'Accept-Language': 'de-CH, en;q=0.5' } },
    );
    expect(body.events[0].type.localized).toEqual({
      key: 'EventTypes.user.human.added',
      localizedMessage: 'Person hinzugefügt',
    });
    expect(body.events[0].aggregate.type.localized.localizedMessage).toBe('Benutzer');
  });

  it('lists event and aggregate types with localized names', async () => {
    const types = await post(server, '/admin/v1/events/types/_search', {}, { headers: { 'Accept-Language': 'de' } });
    expect(types.body.eventTypes).toContainEqual({
      type: 'org.added',
      localized: { key: 'EventTypes.org.added', localizedMessage: 'Organisation hinzugefügt' },
    });
    const aggregates = await post(server, '/admin/v1/aggregates/types/_search', {});
    expect(aggregates.body.aggregateTypes).toContainEqual({
      type: 'user',
      localized: { key: 'AggregateTypes.user', localizedMessage: 'User' },
    });
  });

  it('needs events.read', async () => {
    expect((await post(server, SEARCH, {}, { token: null })).status).toBe(401);
    const orgOwner = await addMachineWithToken(server, await defaultOrgId(server), {
      name: 'v1 test',
      roles: ['ORG_OWNER'],
    });
    const denied = await post(server, SEARCH, {}, { token: orgOwner.token });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe(7);
    expect((await post(server, '/admin/v1/events/types/_search', {}, { token: orgOwner.token })).status).toBe(403);
    const viewer = await addMachineWithToken(server, await defaultOrgId(server), {
      name: 'v1 test',
      roles: ['IAM_OWNER_VIEWER'],
    });
    expect((await post(server, SEARCH, { limit: 1 }, { token: viewer.token })).status).toBe(200);
  });

  it('rejects bad filters with 400', async () => {
    const res = await post(server, SEARCH, { limit: 'many' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/limit/);
    const date = await post(server, SEARCH, { creationDateFilter: { range: { since: 'yesterday' } } });
    expect(date.status).toBe(400);
  });
});
