import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../../gen/portcullis/administrator/v2/administrator_service_pb';
import { AuthorizationService } from '../../../gen/portcullis/authorization/v2/authorization_service_pb';
import { InstanceService } from '../../../gen/portcullis/instance/v2/instance_service_pb';
import { OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../../gen/portcullis/project/v2/project_service_pb';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addMachineWithToken } from '../../helpers/machines';

const hidden = { code: Code.NotFound };
const hiddenOrDenied = (err: any) => expect([Code.NotFound, Code.PermissionDenied]).toContain(err.code);

describe('permissions across organizations', () => {
  let server: TestServer;
  let orgA: string;
  let orgB: string;
  let projectA: string;
  let projectA2: string;
  let projectB: string;
  let authzB: string;
  let adminA: { userId: string; token: string };
  let adminB: { userId: string; token: string };
  let nobody: { userId: string; token: string };
  let projectOwner: { userId: string; token: string };

  beforeAll(async () => {
    server = await startTestServer();
    const orgs = server.client(OrganizationService);
    const projects = server.client(ProjectService);
    const admins = server.client(AdministratorService);
    orgA = (await orgs.createOrganization({ name: 'Org A' })).organizationId;
    orgB = (await orgs.createOrganization({ name: 'Org B' })).organizationId;
    await orgs.setOrganizationMetadata({
      organizationId: orgB,
      metadata: [{ key: 'secret', value: new TextEncoder().encode('b') }],
    });
    projectA = (await projects.createProject({ organizationId: orgA, name: 'Project A' })).projectId;
    projectA2 = (await projects.createProject({ organizationId: orgA, name: 'Project A2' })).projectId;
    projectB = (await projects.createProject({ organizationId: orgB, name: 'Project B' })).projectId;
    await projects.addProjectRole({ projectId: projectB, roleKey: 'r', displayName: 'R' });
    adminA = await addMachineWithToken(server, orgA, { name: 'admin-a' });
    adminB = await addMachineWithToken(server, orgB, { name: 'admin-b' });
    nobody = await addMachineWithToken(server, orgA, { name: 'nobody' });
    projectOwner = await addMachineWithToken(server, orgA, { name: 'project-owner' });
    await admins.createAdministrator({
      userId: adminA.userId,
      resource: { resource: { case: 'organizationId', value: orgA } },
      roles: ['ORG_OWNER'],
    });
    await admins.createAdministrator({
      userId: adminB.userId,
      resource: { resource: { case: 'organizationId', value: orgB } },
      roles: ['ORG_OWNER'],
    });
    await admins.createAdministrator({
      userId: projectOwner.userId,
      resource: { resource: { case: 'projectId', value: projectA } },
      roles: ['PROJECT_OWNER'],
    });
    authzB = (
      await server
        .client(AuthorizationService)
        .createAuthorization({ userId: adminB.userId, projectId: projectB, roleKeys: ['r'] })
    ).id;
  });
  afterAll(() => server?.stop());

  it('an org admin of A sees nothing of org B and cannot change it', async () => {
    const orgs = server.client(OrganizationService, { token: adminA.token });
    await expect(orgs.getOrganization({ organizationId: orgB })).rejects.toMatchObject(hidden);
    const list = await orgs.listOrganizations({});
    expect(list.organizations.map((o) => o.id)).toEqual([orgA]);
    expect(Number(list.pagination?.totalResult)).toBe(1);
    await expect(orgs.updateOrganization({ organizationId: orgB, name: 'Mine now' })).rejects.toMatchObject(hidden);
    await expect(orgs.deactivateOrganization({ organizationId: orgB })).rejects.toMatchObject(hidden);
    await expect(orgs.deleteOrganization({ organizationId: orgB })).rejects.toMatchObject(hidden);
    await expect(orgs.addOrganizationDomain({ organizationId: orgB, domain: 'b.example.com' })).rejects.toMatchObject(
      hidden,
    );
    await expect(orgs.listOrganizationDomains({ organizationId: orgB })).rejects.toMatchObject(hidden);
    await expect(orgs.listOrganizationMetadata({ organizationId: orgB })).rejects.toMatchObject(hidden);
    await expect(
      orgs.setOrganizationMetadata({ organizationId: orgB, metadata: [{ key: 'k', value: new Uint8Array([1]) }] }),
    ).rejects.toMatchObject(hidden);
    await expect(orgs.deleteOrganizationMetadata({ organizationId: orgB, keys: ['secret'] })).rejects.toMatchObject(
      hidden,
    );
    await expect(orgs.createOrganization({ name: 'Not allowed' })).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    // its own organization works
    await orgs.updateOrganization({ organizationId: orgA, name: 'Org A renamed' });
    expect((await orgs.getOrganization({ organizationId: orgA })).organization?.name).toBe('Org A renamed');
  });

  it('an org admin of A sees no project of B and cannot change one', async () => {
    const projects = server.client(ProjectService, { token: adminA.token });
    await expect(projects.getProject({ projectId: projectB })).rejects.toMatchObject(hidden);
    const list = await projects.listProjects({});
    expect(list.projects.map((p) => p.id).sort()).toEqual([projectA, projectA2].sort());
    await expect(
      projects.listProjects({
        filters: [{ filter: { case: 'projectOrganizationId', value: { organizationId: orgB } } }],
      }),
    ).resolves.toMatchObject({
      projects: [],
    });
    await expect(projects.updateProject({ projectId: projectB, name: 'x' })).rejects.toMatchObject(hidden);
    await expect(projects.deleteProject({ projectId: projectB })).rejects.toMatchObject(hidden);
    await expect(
      projects.addProjectRole({ projectId: projectB, roleKey: 'x', displayName: 'x' }),
    ).rejects.toMatchObject(hidden);
    await expect(projects.listProjectRoles({ projectId: projectB })).rejects.toMatchObject(hidden);
    await expect(
      projects.createProjectGrant({ projectId: projectB, grantedOrganizationId: orgA, roleKeys: [] }),
    ).rejects.toMatchObject(hidden);
    await expect(projects.createProject({ organizationId: orgB, name: 'Intruder' })).rejects.toMatchObject(hidden);
    expect((await projects.listProjectGrants({})).projectGrants).toHaveLength(0);
    await projects.createProject({ organizationId: orgA, name: 'Own project' });
  });

  it('an org admin of A sees no authorization or administrator of B', async () => {
    const authz = server.client(AuthorizationService, { token: adminA.token });
    expect((await authz.listAuthorizations({})).authorizations).toHaveLength(0);
    await expect(authz.updateAuthorization({ id: authzB, roleKeys: [] })).rejects.toMatchObject(hidden);
    await expect(authz.deleteAuthorization({ id: authzB })).rejects.toMatchObject(hidden);
    await expect(
      authz.createAuthorization({ userId: adminA.userId, projectId: projectB, roleKeys: [] }),
    ).rejects.toMatchObject(hidden);
    const admins = server.client(AdministratorService, { token: adminA.token });
    const visible = await admins.listAdministrators({});
    expect(visible.administrators.every((a) => a.resourceOwner === orgA)).toBe(true);
    expect(visible.administrators.map((a) => a.userId)).not.toContain(adminB.userId);
    await expect(
      admins.createAdministrator({
        userId: adminA.userId,
        resource: { resource: { case: 'organizationId', value: orgB } },
        roles: ['ORG_OWNER'],
      }),
    ).rejects.toMatchObject(hidden);
    await expect(
      admins.deleteAdministrator({
        userId: adminB.userId,
        resource: { resource: { case: 'organizationId', value: orgB } },
      }),
    ).rejects.toMatchObject(hidden);
    await expect(
      admins.createAdministrator({
        userId: adminA.userId,
        resource: { resource: { case: 'instance', value: true } },
        roles: ['IAM_OWNER'],
      }),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
  });

  it('an org admin cannot read or change the instance', async () => {
    const instance = server.client(InstanceService, { token: adminA.token });
    for (const call of [
      () => instance.getInstance({}),
      () => instance.updateInstance({ instanceName: 'x' }),
      () => instance.getInstanceSettings({}),
      () => instance.updateInstanceSettings({ impersonationAllowed: true }),
      () => instance.listInstanceDomains({}),
      () => instance.addTrustedDomain({ domain: 'evil.example.com' }),
    ]) {
      await call().then(
        () => expect.fail('should be refused'),
        (err) => hiddenOrDenied(err),
      );
    }
  });

  it('the instance admin sees and changes both organizations', async () => {
    const orgs = server.client(OrganizationService);
    const ids = (await orgs.listOrganizations({})).organizations.map((o) => o.id);
    expect(ids).toEqual(expect.arrayContaining([orgA, orgB]));
    await orgs.updateOrganization({ organizationId: orgB, name: 'Org B renamed' });
    const list = await server.client(AuthorizationService).listAuthorizations({});
    expect(list.authorizations.map((a) => a.id)).toContain(authzB);
  });

  it('a user without roles reads only itself', async () => {
    const orgs = server.client(OrganizationService, { token: nobody.token });
    expect((await orgs.listOrganizations({})).organizations).toHaveLength(0);
    await expect(orgs.getOrganization({ organizationId: orgA })).rejects.toMatchObject(hidden);
    expect((await server.client(ProjectService, { token: nobody.token }).listProjects({})).projects).toHaveLength(0);
    await expect(
      server.client(ProjectService, { token: nobody.token }).getProject({ projectId: projectA }),
    ).rejects.toMatchObject(hidden);
    const admins = await server.client(AdministratorService, { token: nobody.token }).listAdministrators({});
    expect(admins.administrators).toHaveLength(0);
    // a project authorization of its own is visible to it, nobody else's
    await server
      .client(ProjectService)
      .addProjectRole({ projectId: projectA, roleKey: 'viewer', displayName: 'Viewer' });
    const own = (
      await server
        .client(AuthorizationService)
        .createAuthorization({ userId: nobody.userId, projectId: projectA, roleKeys: ['viewer'] })
    ).id;
    const list = await server.client(AuthorizationService, { token: nobody.token }).listAuthorizations({});
    expect(list.authorizations.map((a) => a.id)).toEqual([own]);
    await expect(
      server.client(AuthorizationService, { token: nobody.token }).deleteAuthorization({ id: own }),
    ).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
  });

  it('a project owner administers its project only', async () => {
    const projects = server.client(ProjectService, { token: projectOwner.token });
    expect((await projects.listProjects({})).projects.map((p) => p.id)).toEqual([projectA]);
    await projects.updateProject({ projectId: projectA, name: 'Project A renamed' });
    await projects.addProjectRole({ projectId: projectA, roleKey: 'editor', displayName: 'Editor' });
    await expect(projects.getProject({ projectId: projectA2 })).rejects.toMatchObject(hidden);
    await expect(projects.updateProject({ projectId: projectA2, name: 'x' })).rejects.toMatchObject(hidden);
    await expect(
      server.client(OrganizationService, { token: projectOwner.token }).getOrganization({ organizationId: orgA }),
    ).rejects.toMatchObject(hidden);
    await expect(projects.createProject({ organizationId: orgA, name: 'x' })).rejects.toMatchObject(hidden);
  });
});
