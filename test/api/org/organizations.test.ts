import { Code } from '@connectrpc/connect';
import { Gender } from '../../../gen/portcullis/user/v2/user_pb';
import { UserService } from '../../../gen/portcullis/user/v2/user_service_pb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrganizationService, OrganizationState } from '../../../gen/portcullis/org/v2/org_service_pb';
import { TextFilterMethod } from '../../../gen/portcullis/object/v2/object_pb';
import { startTestServer, type TestServer } from '../../helpers/server';
import { InstanceService } from '../../../gen/portcullis/instance/v2/instance_service_pb';
import { eventsSince, lastPosition } from '../../helpers/events';
import { addMachineWithToken } from '../../helpers/machines';
import { verifyOrgDomain } from '../../helpers/orgs';

describe('OrganizationService', () => {
  let server: TestServer;
  let orgs: ReturnType<TestServer['client']> & any;
  beforeAll(async () => {
    server = await startTestServer();
    orgs = server.client(OrganizationService);
  });
  afterAll(() => server?.stop());

  it('creates an organization with a generated primary domain and reads it back', async () => {
    const created = await orgs.createOrganization({ name: 'Acme Corp' });
    expect(created.organizationId).toMatch(/\S+/);
    const { organization } = await orgs.getOrganization({ organizationId: created.organizationId });
    expect(organization).toMatchObject({
      name: 'Acme Corp',
      state: OrganizationState.ACTIVE,
      primaryDomain: 'acme-corp.localhost',
    });
  });

  it('creates the first administrators: a new human user and an existing user, default role ORG_OWNER', async () => {
    const defaultOrg = (await server.client(InstanceService).getInstance({})).instance!.defaultOrganizationId;
    const existing = await addMachineWithToken(server, defaultOrg, { name: 'existing-admin' });
    const position = await lastPosition(server);
    const res = await orgs.createOrganization({
      name: 'With Admins',
      organizationId: 'with-admins',
      admins: [
        { userType: { case: 'userId', value: existing.userId }, roles: ['ORG_USER_MANAGER'] },
        {
          userType: {
            case: 'human',
            value: {
              username: 'alice@with-admins.test',
              profile: { givenName: 'Alice', familyName: 'Admin' },
              email: { email: 'alice@with-admins.test', isVerified: true },
              password: { password: 'Secret-Passw0rd!' },
            },
          },
        },
      ],
    });
    expect(res.organizationId).toBe('with-admins');
    expect(res.createdAdmins).toHaveLength(2);
    expect(res.createdAdmins[0].userId).toBe(existing.userId);
    const added = await eventsSince(server, position);
    expect(added.map((e) => e.eventType)).toEqual(
      expect.arrayContaining([
        'org.added',
        'org.domain.added',
        'org.domain.primary.set',
        'user.human.added',
        'administrator.added',
      ]),
    );
    const adminEvents = added.filter((e) => e.eventType === 'administrator.added');
    for (const e of adminEvents)
      expect(e).toMatchObject({ aggregateType: 'org', aggregateId: 'with-admins', resourceOwner: 'with-admins' });
    expect(adminEvents.map((e) => e.payload)).toEqual([
      { userId: existing.userId, roles: ['ORG_USER_MANAGER'] },
      { userId: res.createdAdmins[1].userId, roles: ['ORG_OWNER'] },
    ]);
    // the existing user can now manage the new organization's users but not rename it
    const asExisting = server.client(OrganizationService, { token: existing.token });
    expect((await asExisting.getOrganization({ organizationId: 'with-admins' })).organization?.name).toBe(
      'With Admins',
    );
    await expect(asExisting.updateOrganization({ organizationId: 'with-admins', name: 'x' })).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
  });

  it("takes the first administrator's gender as the user API's enum (Connect JSON)", async () => {
    const res = await server.fetch('/portcullis.org.v2.OrganizationService/CreateOrganization', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Gendered',
        admins: [
          {
            human: {
              profile: { givenName: 'Grace', familyName: 'Hopper', gender: 'GENDER_FEMALE' },
              email: { email: 'grace@gendered.test' },
            },
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const { createdAdmins } = (await res.json()) as { createdAdmins: { userId: string }[] };
    const { user } = await server.client(UserService).getUserByID({ userId: createdAdmins[0].userId });
    expect(user?.type.case === 'human' && user.type.value.profile?.gender).toBe(Gender.FEMALE);
  });

  it('rejects bad input with INVALID_ARGUMENT naming the field', async () => {
    await expect(orgs.createOrganization({ name: '' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('name'),
    });
    await expect(orgs.createOrganization({ name: 'x', organizationId: 'bad id!' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('organization_id'),
    });
    await expect(
      orgs.createOrganization({
        name: 'Bad Admin',
        admins: [
          {
            userType: {
              case: 'human',
              value: { profile: { givenName: 'A', familyName: 'B' }, email: { email: 'nope' } },
            },
          },
        ],
      }),
    ).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('admins[0].human.email.email'),
    });
    await expect(
      orgs.createOrganization({
        name: 'Bad role',
        admins: [{ userType: { case: 'userId', value: 'x' }, roles: ['IAM_OWNER'] }],
      }),
    ).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
  });

  it('refuses a duplicate name with ALREADY_EXISTS and leaves no event', async () => {
    await orgs.createOrganization({ name: 'Unique Name' });
    const position = await lastPosition(server);
    await expect(orgs.createOrganization({ name: 'unique name' })).rejects.toMatchObject({ code: Code.AlreadyExists });
    expect(await eventsSince(server, position)).toHaveLength(0);
  });

  it('lists with filters and pagination, counted in SQL', async () => {
    for (const n of ['List One', 'List Two', 'List Three']) await orgs.createOrganization({ name: n });
    const page = await orgs.listOrganizations({
      pagination: { limit: 2, asc: true },
      filters: [
        { filter: { case: 'nameFilter', value: { name: 'list ', method: TextFilterMethod.STARTS_WITH_IGNORE_CASE } } },
      ],
    });
    expect(Number(page.pagination.totalResult)).toBe(3);
    expect(Number(page.pagination.appliedLimit)).toBe(2);
    expect(page.organizations.map((o: any) => o.name)).toEqual(['List One', 'List Two']);
    const rest = await orgs.listOrganizations({
      pagination: { offset: 2n, limit: 2, asc: true },
      filters: [{ filter: { case: 'nameFilter', value: { name: 'List', method: TextFilterMethod.STARTS_WITH } } }],
    });
    expect(rest.organizations.map((o: any) => o.name)).toEqual(['List Three']);
    const byDomain = await orgs.listOrganizations({
      filters: [{ filter: { case: 'domainFilter', value: { domain: 'list-two.localhost' } } }],
    });
    expect(byDomain.organizations.map((o: any) => o.name)).toEqual(['List Two']);
    const all = await orgs.listOrganizations({});
    expect(Number(all.pagination.appliedLimit)).toBe(100);
    await expect(orgs.listOrganizations({ pagination: { limit: 1001 } })).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
  });

  it('updates, deactivates and activates, with events', async () => {
    const { organizationId } = await orgs.createOrganization({ name: 'Lifecycle' });
    const member = server.client(OrganizationService, {
      token: (await addMachineWithToken(server, organizationId, { name: 'lifecycle' })).token,
    });
    await member.listOrganizations({});
    const position = await lastPosition(server);
    await orgs.updateOrganization({ organizationId, name: 'Lifecycle Renamed' });
    await orgs.deactivateOrganization({ organizationId });
    // users of a deactivated organization cannot call the API until it is activated again
    await expect(member.listOrganizations({})).rejects.toMatchObject({ code: Code.Unauthenticated });
    expect((await orgs.getOrganization({ organizationId })).organization.state).toBe(OrganizationState.INACTIVE);
    const inactive = await orgs.listOrganizations({
      filters: [{ filter: { case: 'stateFilter', value: { state: OrganizationState.INACTIVE } } }],
    });
    expect(inactive.organizations.map((o: any) => o.id)).toContain(organizationId);
    await expect(orgs.deactivateOrganization({ organizationId })).rejects.toMatchObject({
      code: Code.FailedPrecondition,
    });
    await orgs.activateOrganization({ organizationId });
    await member.listOrganizations({});
    const { organization } = await orgs.getOrganization({ organizationId });
    expect(organization).toMatchObject({ name: 'Lifecycle Renamed', state: OrganizationState.ACTIVE });
    const evs = await eventsSince(server, position);
    expect(evs.map((e) => e.eventType)).toEqual(['org.changed', 'org.deactivated', 'org.reactivated']);
    const machine = await server.app.database.db.query.users.findFirst({
      where: (u, { eq }) => eq(u.username, 'admin-machine'),
    });
    for (const e of evs)
      expect(e).toMatchObject({
        aggregateType: 'org',
        aggregateId: organizationId,
        resourceOwner: organizationId,
        editorUserId: machine!.id,
      });
    expect(evs[0].editorService).toBe('portcullis.org.v2.OrganizationService/UpdateOrganization');
  });

  it('manages domains: add, list, set primary, delete', async () => {
    const { organizationId } = await orgs.createOrganization({ name: 'Domains' });
    const position = await lastPosition(server);
    await orgs.addOrganizationDomain({ organizationId, domain: 'Domains.Example.com' });
    await expect(orgs.addOrganizationDomain({ organizationId, domain: 'http://x' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('domain'),
    });
    await expect(orgs.addOrganizationDomain({ organizationId, domain: 'domains.localhost' })).rejects.toMatchObject({
      code: Code.AlreadyExists,
    });
    let list = await orgs.listOrganizationDomains({ organizationId, pagination: { asc: true } });
    expect(list.domains.map((d: any) => [d.domain, d.isPrimary, d.isGenerated])).toEqual([
      ['domains.example.com', false, false],
      ['domains.localhost', true, true],
    ]);
    // only a verified domain can be primary
    await expect(
      orgs.setPrimaryOrganizationDomain({ organizationId, domain: 'domains.example.com' }),
    ).rejects.toMatchObject({ code: Code.FailedPrecondition, rawMessage: expect.stringContaining('verified') });
    await verifyOrgDomain(server, organizationId, 'domains.example.com');
    await orgs.setPrimaryOrganizationDomain({ organizationId, domain: 'domains.example.com' });
    expect((await orgs.getOrganization({ organizationId })).organization.primaryDomain).toBe('domains.example.com');
    await expect(
      orgs.deleteOrganizationDomain({ organizationId, domain: 'domains.example.com' }),
    ).rejects.toMatchObject({ code: Code.FailedPrecondition });
    await orgs.setPrimaryOrganizationDomain({ organizationId, domain: 'domains.localhost' });
    await orgs.deleteOrganizationDomain({ organizationId, domain: 'domains.example.com' });
    await orgs.deleteOrganizationDomain({ organizationId, domain: 'domains.example.com' });
    list = await orgs.listOrganizationDomains({ organizationId });
    expect(list.domains.map((d: any) => d.domain)).toEqual(['domains.localhost']);
    const types = (await eventsSince(server, position)).map((e) => e.eventType);
    expect(types).toEqual([
      'org.domain.added',
      'org.domain.validation.added',
      'org.domain.verified',
      'org.domain.primary.set',
      'org.domain.primary.set',
      'org.domain.removed',
    ]);
    await expect(orgs.listOrganizationDomains({ organizationId: '' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('organization_id'),
    });
  });

  it('sets, lists and deletes metadata', async () => {
    const { organizationId } = await orgs.createOrganization({ name: 'Meta' });
    const position = await lastPosition(server);
    await orgs.setOrganizationMetadata({
      organizationId,
      metadata: [
        { key: 'a', value: new TextEncoder().encode('one') },
        { key: 'b', value: new TextEncoder().encode('two') },
      ],
    });
    await orgs.setOrganizationMetadata({
      organizationId,
      metadata: [{ key: 'a', value: new TextEncoder().encode('uno') }],
    });
    let list = await orgs.listOrganizationMetadata({ organizationId, pagination: { asc: true } });
    expect(list.metadata.map((m: any) => [m.key, new TextDecoder().decode(m.value)])).toEqual([
      ['a', 'uno'],
      ['b', 'two'],
    ]);
    await orgs.deleteOrganizationMetadata({ organizationId, keys: ['a'] });
    list = await orgs.listOrganizationMetadata({ organizationId });
    expect(list.metadata.map((m: any) => m.key)).toEqual(['b']);
    const types = (await eventsSince(server, position)).map((e) => e.eventType);
    expect(types).toEqual(['org.metadata.set', 'org.metadata.set', 'org.metadata.set', 'org.metadata.removed']);
  });

  it('works over gRPC (h2c) too', async () => {
    const grpc = server.client(OrganizationService, { protocol: 'grpc' });
    const { organizationId } = await grpc.createOrganization({ name: 'Over gRPC' });
    const { organization } = await grpc.getOrganization({ organizationId });
    expect(organization?.name).toBe('Over gRPC');
    await expect(grpc.getOrganization({ organizationId: 'missing' })).rejects.toMatchObject({ code: Code.NotFound });
  });
});
