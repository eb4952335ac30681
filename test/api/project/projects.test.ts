import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationService } from '../../../gen/portcullis/application/v2/application_service_pb';
import { OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { GrantState, ProjectService, ProjectState } from '../../../gen/portcullis/project/v2/project_service_pb';
import { startTestServer, type TestServer } from '../../helpers/server';
import { eventsSince, lastPosition } from '../../helpers/events';

describe('ProjectService', () => {
  let server: TestServer;
  let orgId: string;
  let otherOrgId: string;
  beforeAll(async () => {
    server = await startTestServer();
    const orgs = server.client(OrganizationService);
    orgId = (await orgs.createOrganization({ name: 'Project Owner' })).organizationId;
    otherOrgId = (await orgs.createOrganization({ name: 'Project Partner' })).organizationId;
  });
  afterAll(() => server?.stop());

  it('creates, reads, updates, deactivates, activates and deletes a project with events', async () => {
    const projects = server.client(ProjectService);
    const position = await lastPosition(server);
    const { projectId } = await projects.createProject({
      organizationId: orgId,
      name: 'Portal',
      projectRoleAssertion: true,
    });
    let { project } = await projects.getProject({ projectId });
    expect(project).toMatchObject({
      name: 'Portal',
      organizationId: orgId,
      state: ProjectState.ACTIVE,
      projectRoleAssertion: true,
      grantedOrganizationId: '',
    });
    await projects.updateProject({ projectId, name: 'Portal 2', authorizationRequired: true });
    await projects.deactivateProject({ projectId });
    ({ project } = await projects.getProject({ projectId }));
    expect(project).toMatchObject({
      name: 'Portal 2',
      authorizationRequired: true,
      projectRoleAssertion: true,
      state: ProjectState.INACTIVE,
    });
    await expect(projects.deactivateProject({ projectId })).rejects.toMatchObject({ code: Code.FailedPrecondition });
    await projects.activateProject({ projectId });
    await projects.deleteProject({ projectId });
    await projects.deleteProject({ projectId });
    await expect(projects.getProject({ projectId })).rejects.toMatchObject({ code: Code.NotFound });
    const evs = await eventsSince(server, position);
    expect(evs.map((e) => e.eventType)).toEqual([
      'project.added',
      'project.changed',
      'project.deactivated',
      'project.reactivated',
      'project.removed',
    ]);
    for (const e of evs)
      expect(e).toMatchObject({ aggregateType: 'project', aggregateId: projectId, resourceOwner: orgId });
  });

  it('deleting a project removes its applications from the lists', async () => {
    const projects = server.client(ProjectService);
    const apps = server.client(ApplicationService);
    const { projectId } = await projects.createProject({ organizationId: orgId, name: 'With app' });
    const { applicationId } = await apps.createApplication({
      projectId,
      name: 'api',
      configuration: { case: 'api', value: {} },
    });
    expect((await apps.listApplications({})).applications.map((a) => a.applicationId)).toContain(applicationId);
    await projects.deleteProject({ projectId });
    const list = await apps.listApplications({});
    expect(list.applications.map((a) => a.applicationId)).not.toContain(applicationId);
    await expect(projects.getProject({ projectId: '' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('project_id'),
    });
  });

  it('validates input and the organization', async () => {
    const projects = server.client(ProjectService);
    await expect(projects.createProject({ organizationId: orgId, name: '  ' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('name'),
    });
    await expect(projects.createProject({ organizationId: '', name: 'x' })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('organization_id'),
    });
    await expect(projects.createProject({ organizationId: 'nope', name: 'x' })).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });

  it('manages roles: add, update, list, remove (grants and authorizations lose the key)', async () => {
    const projects = server.client(ProjectService);
    const { projectId } = await projects.createProject({ organizationId: orgId, name: 'Roles' });
    const position = await lastPosition(server);
    await projects.addProjectRole({ projectId, roleKey: 'admin', displayName: 'Admin', group: 'staff' });
    await projects.addProjectRole({ projectId, roleKey: 'reader', displayName: 'Reader' });
    await expect(projects.addProjectRole({ projectId, roleKey: 'admin', displayName: 'Again' })).rejects.toMatchObject({
      code: Code.AlreadyExists,
    });
    await projects.updateProjectRole({ projectId, roleKey: 'reader', displayName: 'Viewer' });
    await expect(projects.updateProjectRole({ projectId, roleKey: 'ghost', displayName: 'x' })).rejects.toMatchObject({
      code: Code.NotFound,
    });
    let roles = await projects.listProjectRoles({ projectId, pagination: { asc: true } });
    expect(roles.projectRoles.map((r) => [r.key, r.displayName, r.group])).toEqual([
      ['admin', 'Admin', 'staff'],
      ['reader', 'Viewer', ''],
    ]);
    expect(Number(roles.pagination?.totalResult)).toBe(2);
    await projects.createProjectGrant({ projectId, grantedOrganizationId: otherOrgId, roleKeys: ['admin', 'reader'] });
    await projects.removeProjectRole({ projectId, roleKey: 'admin' });
    roles = await projects.listProjectRoles({ projectId });
    expect(roles.projectRoles.map((r) => r.key)).toEqual(['reader']);
    const grants = await projects.listProjectGrants({ projectId });
    expect(grants.projectGrants[0].roleKeys).toEqual(['reader']);
    const types = (await eventsSince(server, position)).map((e) => e.eventType);
    expect(types).toEqual([
      'project.role.added',
      'project.role.added',
      'project.role.changed',
      'project.grant.added',
      'project.role.removed',
    ]);
  });

  it('manages grants: create (roles ⊆ project roles), update, deactivate, activate, delete', async () => {
    const projects = server.client(ProjectService);
    const { projectId } = await projects.createProject({ organizationId: orgId, name: 'Granted' });
    await projects.addProjectRole({ projectId, roleKey: 'a', displayName: 'A' });
    await projects.addProjectRole({ projectId, roleKey: 'b', displayName: 'B' });
    await expect(
      projects.createProjectGrant({ projectId, grantedOrganizationId: otherOrgId, roleKeys: ['zzz'] }),
    ).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('role_keys'),
    });
    await expect(
      projects.createProjectGrant({ projectId, grantedOrganizationId: orgId, roleKeys: [] }),
    ).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('granted_organization_id'),
    });
    const position = await lastPosition(server);
    const { grantId } = await projects.createProjectGrant({
      projectId,
      grantedOrganizationId: otherOrgId,
      roleKeys: ['a'],
    });
    await expect(
      projects.createProjectGrant({ projectId, grantedOrganizationId: otherOrgId, roleKeys: ['a'] }),
    ).rejects.toMatchObject({
      code: Code.AlreadyExists,
    });
    await projects.updateProjectGrant({ projectId, grantedOrganizationId: otherOrgId, roleKeys: ['a', 'b'] });
    await projects.deactivateProjectGrant({ projectId, grantedOrganizationId: otherOrgId });
    let [grant] = (await projects.listProjectGrants({ projectId })).projectGrants;
    expect(grant).toMatchObject({
      grantId,
      roleKeys: ['a', 'b'],
      state: GrantState.INACTIVE,
      grantedOrganizationName: 'Project Partner',
      projectName: 'Granted',
    });
    await projects.activateProjectGrant({ projectId, grantedOrganizationId: otherOrgId });
    [grant] = (await projects.listProjectGrants({ projectId })).projectGrants;
    expect(grant.state).toBe(GrantState.ACTIVE);
    await projects.deleteProjectGrant({ projectId, grantedOrganizationId: otherOrgId });
    await projects.deleteProjectGrant({ projectId, grantedOrganizationId: otherOrgId });
    expect((await projects.listProjectGrants({ projectId })).projectGrants).toHaveLength(0);
    const evs = await eventsSince(server, position);
    expect(evs.map((e) => e.eventType)).toEqual([
      'project.grant.added',
      'project.grant.changed',
      'project.grant.deactivated',
      'project.grant.reactivated',
      'project.grant.removed',
    ]);
    expect(evs[0]).toMatchObject({ aggregateType: 'project', aggregateId: projectId, resourceOwner: orgId });
    expect(evs[0].payload).toMatchObject({ grantId, grantedOrgId: otherOrgId, roleKeys: ['a'] });
  });

  it('lists owned and granted projects in one list with filters', async () => {
    const projects = server.client(ProjectService);
    const orgs = server.client(OrganizationService);
    const owner = (await orgs.createOrganization({ name: 'Lister' })).organizationId;
    const partner = (await orgs.createOrganization({ name: 'Lister Partner' })).organizationId;
    const p1 = (await projects.createProject({ organizationId: owner, name: 'L one' })).projectId;
    const p2 = (await projects.createProject({ organizationId: owner, name: 'L two' })).projectId;
    await projects.createProjectGrant({ projectId: p1, grantedOrganizationId: partner, roleKeys: [] });

    const owned = await projects.listProjects({
      filters: [{ filter: { case: 'projectOrganizationId', value: { organizationId: owner } } }],
      pagination: { asc: true },
    });
    // the instance admin sees both owned records and the granted record of p1
    expect(owned.projects.map((p) => [p.id, p.grantedOrganizationId])).toEqual([
      [p1, ''],
      [p1, partner],
      [p2, ''],
    ]);
    expect(Number(owned.pagination?.totalResult)).toBe(3);
    const ownedOnly = await projects.listProjects({
      filters: [
        { filter: { case: 'projectOrganizationId', value: { organizationId: owner } } },
        { filter: { case: 'kind', value: { ownedOnly: true } } },
      ],
    });
    expect(ownedOnly.projects.every((p) => p.grantedOrganizationId === '')).toBe(true);
    expect(ownedOnly.projects).toHaveLength(2);
    const granted = await projects.listProjects({
      filters: [{ filter: { case: 'projectGrantOrganizationId', value: { organizationId: partner } } }],
    });
    expect(granted.projects).toHaveLength(1);
    expect(granted.projects[0]).toMatchObject({
      id: p1,
      grantedOrganizationId: partner,
      grantedOrganizationName: 'Lister Partner',
      grantedState: GrantState.ACTIVE,
    });
    const grantedOnly = await projects.listProjects({
      filters: [
        { filter: { case: 'kind', value: { grantedOnly: true } } },
        { filter: { case: 'inProjectIds', value: { projectIds: [p1, p2] } } },
      ],
    });
    expect(grantedOnly.projects.map((p) => p.id)).toEqual([p1]);
    const byName = await projects.listProjects({ filters: [{ filter: { case: 'name', value: { name: 'L two' } } }] });
    expect(byName.projects.map((p) => p.id)).toEqual([p2]);
    const paged = await projects.listProjects({
      pagination: { limit: 1, offset: 1n, asc: true },
      filters: [{ filter: { case: 'projectOrganizationId', value: { organizationId: owner } } }],
    });
    expect(paged.projects.map((p) => [p.id, p.grantedOrganizationId])).toEqual([[p1, partner]]);
    expect(Number(paged.pagination?.appliedLimit)).toBe(1);
  });

  it('works over gRPC (h2c) too', async () => {
    const grpc = server.client(ProjectService, { protocol: 'grpc' });
    const { projectId } = await grpc.createProject({ organizationId: orgId, name: 'gRPC project' });
    expect((await grpc.getProject({ projectId })).project?.name).toBe('gRPC project');
  });
});
