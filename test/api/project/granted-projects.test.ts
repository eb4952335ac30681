import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../../gen/portcullis/administrator/v2/administrator_service_pb';
import { AuthorizationService } from '../../../gen/portcullis/authorization/v2/authorization_service_pb';
import { OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { GrantState, ProjectService } from '../../../gen/portcullis/project/v2/project_service_pb';
import { startTestServer, type TestServer } from '../../helpers/server';
import { eventsSince, lastPosition } from '../../helpers/events';
import { addMachineWithToken } from '../../helpers/machines';

describe('a project granted to another organization', () => {
  let server: TestServer;
  let owner: string;
  let partner: string;
  let projectId: string;
  let hiddenProjectId: string;
  let partnerAdmin: { userId: string; token: string };
  let partnerUser: { userId: string; token: string };
  let ownerUser: { userId: string; token: string };

  beforeAll(async () => {
    server = await startTestServer();
    const orgs = server.client(OrganizationService);
    const projects = server.client(ProjectService);
    owner = (await orgs.createOrganization({ name: 'Owner Org' })).organizationId;
    partner = (await orgs.createOrganization({ name: 'Partner Org' })).organizationId;
    projectId = (await projects.createProject({ organizationId: owner, name: 'Shared' })).projectId;
    hiddenProjectId = (await projects.createProject({ organizationId: owner, name: 'Not shared' })).projectId;
    for (const key of ['a', 'b', 'c'])
      await projects.addProjectRole({ projectId, roleKey: key, displayName: key.toUpperCase() });
    await projects.createProjectGrant({ projectId, grantedOrganizationId: partner, roleKeys: ['a', 'b'] });
    partnerAdmin = await addMachineWithToken(server, partner, { name: 'partner-admin' });
    partnerUser = await addMachineWithToken(server, partner, { name: 'partner-user' });
    ownerUser = await addMachineWithToken(server, owner, { name: 'owner-user' });
    await server.client(AdministratorService).createAdministrator({
      userId: partnerAdmin.userId,
      resource: { resource: { case: 'organizationId', value: partner } },
      roles: ['ORG_OWNER'],
    });
  });
  afterAll(() => server?.stop());

  it('is listed for the granted organization as granted, and only that', async () => {
    const projects = server.client(ProjectService, { token: partnerAdmin.token });
    const list = await projects.listProjects({});
    expect(list.projects).toHaveLength(1);
    expect(list.projects[0]).toMatchObject({
      id: projectId,
      organizationId: owner,
      grantedOrganizationId: partner,
      grantedOrganizationName: 'Partner Org',
      grantedState: GrantState.ACTIVE,
      grantedRoleKeys: ['a', 'b'],
    });
    expect(Number(list.pagination?.totalResult)).toBe(1);
    expect(
      (await projects.listProjects({ filters: [{ filter: { case: 'kind', value: { ownedOnly: true } } }] })).projects,
    ).toHaveLength(0);
    const { project } = await projects.getProject({ projectId });
    expect(project?.grantedOrganizationId).toBe(partner);
    await expect(projects.getProject({ projectId: hiddenProjectId })).rejects.toMatchObject({ code: Code.NotFound });
  });

  it('shows only the granted roles', async () => {
    const projects = server.client(ProjectService, { token: partnerAdmin.token });
    const roles = await projects.listProjectRoles({ projectId, pagination: { asc: true } });
    expect(roles.projectRoles.map((r) => r.key)).toEqual(['a', 'b']);
  });

  it('cannot be changed by the granted organization', async () => {
    const projects = server.client(ProjectService, { token: partnerAdmin.token });
    const denied = { code: Code.PermissionDenied };
    await expect(projects.updateProject({ projectId, name: 'Hijacked' })).rejects.toMatchObject(denied);
    await expect(projects.deactivateProject({ projectId })).rejects.toMatchObject(denied);
    await expect(projects.deleteProject({ projectId })).rejects.toMatchObject(denied);
    await expect(projects.addProjectRole({ projectId, roleKey: 'x', displayName: 'X' })).rejects.toMatchObject(denied);
    await expect(projects.removeProjectRole({ projectId, roleKey: 'a' })).rejects.toMatchObject(denied);
    await expect(
      projects.updateProjectGrant({ projectId, grantedOrganizationId: partner, roleKeys: ['a', 'b', 'c'] }),
    ).rejects.toMatchObject(denied);
    expect((await server.client(ProjectService).getProject({ projectId })).project?.name).toBe('Shared');
  });

  it('lets the granted organization authorize its own users for the granted roles only', async () => {
    const authz = server.client(AuthorizationService, { token: partnerAdmin.token });
    const position = await lastPosition(server);
    const { id } = await authz.createAuthorization({
      userId: partnerUser.userId,
      projectId,
      organizationId: partner,
      roleKeys: ['a'],
    });
    await expect(
      authz.createAuthorization({ userId: partnerUser.userId, projectId, organizationId: partner, roleKeys: ['c'] }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: expect.stringContaining('role_keys') });
    // a user of the owning organization, which the partner cannot read, does not exist for it
    await expect(
      authz.createAuthorization({ userId: ownerUser.userId, projectId, organizationId: partner, roleKeys: ['a'] }),
    ).rejects.toMatchObject({ code: Code.NotFound });
    // as the owning organization it may not authorize anyone
    await expect(
      authz.createAuthorization({ userId: partnerUser.userId, projectId, roleKeys: ['a'] }),
    ).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    await authz.updateAuthorization({ id, roleKeys: ['a', 'b'] });
    await expect(authz.updateAuthorization({ id, roleKeys: ['c'] })).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    const list = await authz.listAuthorizations({});
    expect(list.authorizations.map((a) => [a.id, a.organizationId, a.projectGrantId !== '', a.roleKeys])).toEqual([
      [id, partner, true, ['a', 'b']],
    ]);

    const evs = await eventsSince(server, position);
    expect(evs.map((e) => e.eventType)).toEqual(['authorization.added', 'authorization.changed']);
    expect(evs[0]).toMatchObject({
      aggregateType: 'authorization',
      aggregateId: id,
      resourceOwner: partner,
      editorUserId: partnerAdmin.userId,
    });

    // the owner narrows the grant: the authorization loses the role
    await server
      .client(ProjectService)
      .updateProjectGrant({ projectId, grantedOrganizationId: partner, roleKeys: ['b'] });
    const after = await authz.listAuthorizations({});
    expect(after.authorizations[0].roleKeys).toEqual(['b']);

    // the owner sees the authorization given by the partner too
    const ownerView = await server.client(AuthorizationService).listAuthorizations({ projectId });
    expect(ownerView.authorizations.map((a) => a.id)).toContain(id);

    // deleting the grant removes the authorizations given through it
    await server.client(ProjectService).deleteProjectGrant({ projectId, grantedOrganizationId: partner });
    expect((await authz.listAuthorizations({})).authorizations).toHaveLength(0);
    expect((await server.client(ProjectService, { token: partnerAdmin.token }).listProjects({})).projects).toHaveLength(
      0,
    );
  });
});
