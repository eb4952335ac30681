import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventService } from '../../../gen/portcullis/event/v2/event_service_pb';
import { OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { addMachineWithToken } from '../../helpers/machines';
import { addOrg } from '../../helpers/orgs';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addUser } from '../../helpers/users';

/** EventService over the v2 API: the v1 search's query and redaction, paging by position. */
describe('EventService', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('finds the events of one aggregate, newest first, with names in the caller language', async () => {
    const { organizationId } = await server.client(OrganizationService).createOrganization({ name: 'Evented' });
    const events = server.client(EventService);
    const { events: found } = await events.listEvents({ aggregateId: organizationId });
    const added = found.find((e) => e.type === 'org.added')!;
    expect(added.aggregateType).toBe('org');
    expect(added.payload).toMatchObject({ name: 'Evented' });
    expect(added.editorService).toBeTruthy();
    expect(found.map((e) => e.position)).toEqual([...found.map((e) => e.position)].sort((a, b) => (a < b ? 1 : -1)));
    const german = server.client(EventService);
    const de = await german.listEvents({ aggregateId: organizationId }, { headers: { 'Accept-Language': 'de' } });
    expect(de.events.find((e) => e.type === 'org.added')!.typeName).not.toBe(added.typeName);
    const types = await events.listEventTypes({});
    expect(types.eventTypes.find((t) => t.type === 'org.added')?.name).toBeTruthy();
  });

  it('pages by position: the next page continues after the last event of the previous one', async () => {
    const events = server.client(EventService);
    const first = await events.listEvents({ limit: 3 });
    expect(first.events).toHaveLength(3);
    const next = await events.listEvents({ limit: 3, position: first.events[2].position });
    expect(next.events[0].position).toBeLessThan(first.events[2].position);
    const all = await events.listEvents({ limit: 6 });
    expect([...first.events, ...next.events].map((e) => e.position)).toEqual(all.events.map((e) => e.position));
  });

  it('shows password hashes only to iam.write holders, not to a viewer who may read events', async () => {
    const user = await addUser(server);
    const owner = await server.client(EventService).listEvents({ aggregateId: user.id });
    expect(JSON.stringify(owner.events.map((e) => e.payload))).toMatch(/\$argon2/);
    const viewer = await addMachineWithToken(server, (await addOrg(server, 'Viewers')).id, {
      name: 'viewer',
      roles: ['IAM_OWNER_VIEWER'],
    });
    const seen = await server.client(EventService, { token: viewer.token }).listEvents({ aggregateId: user.id });
    expect(seen.events.length).toBe(owner.events.length);
    expect(JSON.stringify(seen.events.map((e) => e.payload))).not.toMatch(/\$argon2/);
  });

  it("an organization's owner reads the events of that organization only", async () => {
    const own = await addOrg(server, 'Owned events');
    const other = await addOrg(server, 'Other events');
    const member = await addUser(server, { orgId: own.id });
    await addUser(server, { orgId: other.id });
    const owner = await addMachineWithToken(server, own.id, { name: 'org owner', roles: ['ORG_OWNER'] });
    const events = server.client(EventService, { token: owner.token });
    const mine = await events.listEvents({ resourceOwner: own.id });
    expect(mine.events.some((e) => e.aggregateId === member.id && e.type === 'user.human.added')).toBe(true);
    expect(mine.events.every((e) => e.resourceOwner === own.id)).toBe(true);
    // the password hash stays an instance writer's
    expect(JSON.stringify(mine.events.map((e) => e.payload))).not.toMatch(/\$argon2/);
    await expect(events.listEvents({})).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(events.listEvents({ resourceOwner: other.id })).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await expect(events.listEventTypes({})).rejects.toMatchObject({ code: Code.PermissionDenied });
  });

  it('a caller without events.read is refused; so is an anonymous one', async () => {
    const plain = await addMachineWithToken(server, (await addOrg(server, 'No events')).id, { name: 'plain' });
    const events = server.client(EventService, { token: plain.token });
    await expect(events.listEvents({})).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(events.listEventTypes({})).rejects.toMatchObject({ code: Code.PermissionDenied });
    const anonymous = server.client(EventService, { token: null });
    await expect(anonymous.listEvents({})).rejects.toMatchObject({ code: Code.Unauthenticated });
    // and what the plain user could see otherwise is still there for one who may
    await expect(server.client(UserService).listUsers({})).resolves.toBeTruthy();
  });
});
