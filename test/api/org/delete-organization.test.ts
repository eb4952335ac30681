import { Code } from '@connectrpc/connect';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../../gen/portcullis/administrator/v2/administrator_service_pb';
import { ApplicationService } from '../../../gen/portcullis/application/v2/application_service_pb';
import { AuthorizationService } from '../../../gen/portcullis/authorization/v2/authorization_service_pb';
import { OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../../gen/portcullis/project/v2/project_service_pb';
import { users } from '../../../src/db/schema/index';
import { startTestServer, type TestServer } from '../../helpers/server';
import { eventsSince, lastPosition } from '../../helpers/events';
import { addMachineWithToken } from '../../helpers/machines';

describe('DeleteOrganization', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('removes the organization with its users, projects, apps and grants from every list', async () => {
    const orgs = server.client(OrganizationService);
    const projects = server.client(ProjectService);
    const apps = server.client(ApplicationService);
    const authz = server.client(AuthorizationService);
    const { organizationId } = await orgs.createOrganization({ name: 'Doomed' });
    const { organizationId: other } = await orgs.createOrganization({ name: 'Survivor' });
    const member = await addMachineWithToken(server, organizationId, { name: 'doomed', username: 'doomed-user' });
    await server.client(AdministratorService).createAdministrator({
      userId: member.userId,
      resource: { resource: { case: 'organizationId', value: organizationId } },
      roles: ['ORG_OWNER'],
    });
    const { projectId } = await projects.createProject({ organizationId, name: 'Doomed project' });
    await projects.addProjectRole({ projectId, roleKey: 'r', displayName: 'R' });
    await projects.createProjectGrant({ projectId, grantedOrganizationId: other, roleKeys: ['r'] });
    const { id: authzId } = await authz.createAuthorization({ userId: member.userId, projectId, roleKeys: ['r'] });
    const app = await apps.createApplication({
      projectId,
      name: 'Doomed app',
      configuration: { case: 'api', value: {} },
    });

    expect((await apps.listApplications({})).applications.map((a) => a.applicationId)).toContain(app.applicationId);
    const position = await lastPosition(server);
    await orgs.deleteOrganization({ organizationId });

    await expect(orgs.getOrganization({ organizationId })).rejects.toMatchObject({ code: Code.NotFound });
    const listed = await orgs.listOrganizations({});
    expect(listed.organizations.map((o) => o.id)).not.toContain(organizationId);
    await expect(projects.getProject({ projectId })).rejects.toMatchObject({ code: Code.NotFound });
    expect((await projects.listProjects({})).projects.map((p) => p.id)).not.toContain(projectId);
    expect((await projects.listProjectGrants({})).projectGrants.map((g) => g.projectId)).not.toContain(projectId);
    expect((await authz.listAuthorizations({})).authorizations.map((a) => a.id)).not.toContain(authzId);
    expect((await apps.listApplications({})).applications.map((a) => a.applicationId)).not.toContain(app.applicationId);
    const admins = await server.client(AdministratorService).listAdministrators({ userId: member.userId });
    expect(admins.administrators).toHaveLength(0);

    // The member's token stops working and its username is free again.
    await expect(
      server.client(OrganizationService, { token: member.token }).listOrganizations({}),
    ).rejects.toMatchObject({ code: Code.Unauthenticated });
    const [row] = await server.app.database.db
      .select({ state: users.state })
      .from(users)
      .where(eq(users.id, member.userId));
    expect(row.state).toBe('REMOVED');
    await addMachineWithToken(server, other, { name: 'again', username: 'doomed-user' });
    // The generated domain and the name are free for a new organization.
    const again = await orgs.createOrganization({ name: 'Doomed' });
    expect((await orgs.getOrganization({ organizationId: again.organizationId })).organization?.primaryDomain).toBe(
      'doomed.localhost',
    );

    const evs = await eventsSince(server, position);
    expect(evs.find((e) => e.eventType === 'org.removed')).toMatchObject({
      aggregateType: 'org',
      aggregateId: organizationId,
      resourceOwner: organizationId,
    });
    // Deleting again succeeds.
    await orgs.deleteOrganization({ organizationId });
  });

  it('refuses to delete or deactivate the default organization', async () => {
    const orgs = server.client(OrganizationService);
    const defaultOrg = (
      await server
        .fetch('/portcullis.instance.v2.InstanceService/GetInstance', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
        })
        .then((r) => r.json())
    ).instance.defaultOrganizationId;
    await expect(orgs.deleteOrganization({ organizationId: defaultOrg })).rejects.toMatchObject({
      code: Code.FailedPrecondition,
    });
    await expect(orgs.deactivateOrganization({ organizationId: defaultOrg })).rejects.toMatchObject({
      code: Code.FailedPrecondition,
    });
  });
});
