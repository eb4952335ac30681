import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService, ResourceType } from '../../../gen/portcullis/administrator/v2/administrator_service_pb';
import { OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../../gen/portcullis/project/v2/project_service_pb';
import { startTestServer, type TestServer } from '../../helpers/server';
import { eventsSince, lastPosition } from '../../helpers/events';
import { addMachineWithToken } from '../../helpers/machines';

describe('AdministratorService', () => {
  let server: TestServer;
  let orgId: string;
  let projectId: string;
  beforeAll(async () => {
    server = await startTestServer();
    orgId = (await server.client(OrganizationService).createOrganization({ name: 'Admins Org' })).organizationId;
    projectId = (await server.client(ProjectService).createProject({ organizationId: orgId, name: 'Admins Project' }))
      .projectId;
  });
  afterAll(() => server?.stop());

  it('creates, updates, lists and deletes memberships on org, project and instance, with events', async () => {
    const admins = server.client(AdministratorService);
    const u = await addMachineWithToken(server, orgId, { name: 'member' });
    const position = await lastPosition(server);
    const onOrg = { resource: { case: 'organizationId' as const, value: orgId } };
    const onProject = { resource: { case: 'projectId' as const, value: projectId } };
    const onInstance = { resource: { case: 'instance' as const, value: true } };
    await admins.createAdministrator({ userId: u.userId, resource: onOrg, roles: ['ORG_USER_MANAGER'] });
    await admins.createAdministrator({ userId: u.userId, resource: onProject, roles: ['PROJECT_OWNER_VIEWER'] });
    await admins.createAdministrator({ userId: u.userId, resource: onInstance, roles: ['IAM_OWNER_VIEWER'] });
    await expect(
      admins.createAdministrator({ userId: u.userId, resource: onOrg, roles: ['ORG_OWNER'] }),
    ).rejects.toMatchObject({ code: Code.AlreadyExists });
    await admins.updateAdministrator({ userId: u.userId, resource: onOrg, roles: ['ORG_OWNER'] });

    const list = await admins.listAdministrators({ userId: u.userId, pagination: { asc: true } });
    expect(list.administrators.map((a) => [a.resourceType, a.resourceId, a.roles])).toEqual([
      [ResourceType.ORGANIZATION, orgId, ['ORG_OWNER']],
      [ResourceType.PROJECT, projectId, ['PROJECT_OWNER_VIEWER']],
      [ResourceType.INSTANCE, server.app.bootstrap.instanceId, ['IAM_OWNER_VIEWER']],
    ]);
    const byResource = await admins.listAdministrators({ resource: onProject });
    expect(byResource.administrators.map((a) => a.userId)).toEqual([u.userId]);
    expect((await admins.listAdministrators({ role: 'IAM_OWNER_VIEWER' })).administrators.map((a) => a.userId)).toEqual(
      [u.userId],
    );

    // the new roles take effect on the next call
    const asMember = server.client(OrganizationService, { token: u.token });
    await asMember.updateOrganization({ organizationId: orgId, name: 'Admins Org renamed' });

    await admins.deleteAdministrator({ userId: u.userId, resource: onOrg });
    await admins.deleteAdministrator({ userId: u.userId, resource: onOrg });
    await expect(asMember.updateOrganization({ organizationId: orgId, name: 'again' })).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });

    const evs = await eventsSince(server, position);
    expect(evs.map((e) => [e.eventType, e.aggregateType])).toEqual([
      ['administrator.added', 'org'],
      ['administrator.added', 'project'],
      ['administrator.added', 'instance'],
      ['administrator.changed', 'org'],
      ['org.changed', 'org'],
      ['administrator.removed', 'org'],
    ]);
    expect(evs[1]).toMatchObject({ aggregateId: projectId, resourceOwner: orgId });
  });

  it('validates roles against the resource and leaves no event on failure', async () => {
    const admins = server.client(AdministratorService);
    const u = await addMachineWithToken(server, orgId, { name: 'invalid' });
    const position = await lastPosition(server);
    await expect(
      admins.createAdministrator({
        userId: u.userId,
        resource: { resource: { case: 'organizationId', value: orgId } },
        roles: ['IAM_OWNER'],
      }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: expect.stringContaining('IAM_OWNER') });
    await expect(
      admins.createAdministrator({
        userId: u.userId,
        resource: { resource: { case: 'organizationId', value: orgId } },
        roles: [],
      }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: expect.stringContaining('roles') });
    await expect(admins.createAdministrator({ userId: u.userId, roles: ['ORG_OWNER'] })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('resource'),
    });
    await expect(
      admins.createAdministrator({
        userId: 'ghost',
        resource: { resource: { case: 'organizationId', value: orgId } },
        roles: ['ORG_OWNER'],
      }),
    ).rejects.toMatchObject({ code: Code.NotFound });
    await expect(
      admins.updateAdministrator({
        userId: u.userId,
        resource: { resource: { case: 'organizationId', value: orgId } },
        roles: ['ORG_OWNER'],
      }),
    ).rejects.toMatchObject({ code: Code.NotFound });
    expect(await eventsSince(server, position)).toHaveLength(0);
  });

  it('works over gRPC (h2c) too', async () => {
    const grpc = server.client(AdministratorService, { protocol: 'grpc' });
    const u = await addMachineWithToken(server, orgId, { name: 'grpc' });
    await grpc.createAdministrator({
      userId: u.userId,
      resource: { resource: { case: 'projectId', value: projectId } },
      roles: ['PROJECT_OWNER'],
    });
    const list = await grpc.listAdministrators({ userId: u.userId });
    expect(list.administrators.map((a) => a.roles)).toEqual([['PROJECT_OWNER']]);
  });
});
