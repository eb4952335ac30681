import { Code } from '@connectrpc/connect';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../gen/portcullis/project/v2/project_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { applications, projects, users } from '../../src/db/schema/index';
import { CONSOLE_APP_ID, SYSTEM_PROJECT_ID } from '../../src/domain/instance/system-resources';
import { defaultOrgId } from '../helpers/context';
import { addMachineWithToken } from '../helpers/machines';
import { addOrg } from '../helpers/orgs';
import { startTestServer, type TestServer } from '../helpers/server';

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) => e as { code: Code; rawMessage: string },
  );

const instance = { resource: { resource: { case: 'instance' as const, value: true } } };

/**
 * An instance must not lose its last owner, nor the console everybody signs in to: an IAM_OWNER who
 * tries (by mistake, or an attacker holding its token who wants the operator locked out) is refused.
 */
describe('nobody can lock the operators out of the instance', () => {
  let server: TestServer;
  let defaultOrg: string;
  let otherOrg: string;
  let owner: { userId: string; token: string };
  let idOf: (username: string) => Promise<string>;

  beforeAll(async () => {
    server = await startTestServer();
    defaultOrg = await defaultOrgId(server);
    const db = server.app.database.db;
    idOf = async (username) =>
      (await db.select({ id: users.id }).from(users).where(eq(users.username, username)))[0].id;
    otherOrg = (await addOrg(server, 'Owners Elsewhere')).id;
    owner = await addMachineWithToken(server, otherOrg, { username: 'owner-elsewhere', roles: ['IAM_OWNER'] });
  });
  afterAll(() => server?.stop());

  const expectLastOwner = async (p: Promise<unknown>) => {
    const err = await failureOf(p);
    expect(err?.code).toBe(Code.FailedPrecondition);
    expect(err?.rawMessage).toMatch(/the last instance owner/);
  };

  it('the system project and the console application cannot be deleted', async () => {
    const projectsApi = server.client(ProjectService);
    const appsApi = server.client(ApplicationService);
    const project = await failureOf(projectsApi.deleteProject({ projectId: SYSTEM_PROJECT_ID }));
    expect(project?.code).toBe(Code.FailedPrecondition);
    expect(project?.rawMessage).toMatch(/system project cannot be deleted/);
    const app = await failureOf(appsApi.deleteApplication({ applicationId: CONSOLE_APP_ID }));
    expect(app?.code).toBe(Code.FailedPrecondition);
    expect(app?.rawMessage).toMatch(/console application cannot be deleted/);
    const db = server.app.database.db;
    const [p] = await db.select({ state: projects.state }).from(projects).where(eq(projects.id, SYSTEM_PROJECT_ID));
    const [a] = await db
      .select({ state: applications.state })
      .from(applications)
      .where(eq(applications.id, CONSOLE_APP_ID));
    expect([p.state, a.state]).toEqual(['ACTIVE', 'ACTIVE']);
    // Deactivating stays possible (that is how the console is turned off) and reversible through the API.
    await appsApi.deactivateApplication({ applicationId: CONSOLE_APP_ID });
    await appsApi.reactivateApplication({ applicationId: CONSOLE_APP_ID });
  });

  it('with several owners, one of them can be removed', async () => {
    // The bootstrap admin (human) and admin-machine (the PAT) own the instance, and so does `owner`.
    const admins = server.client(AdministratorService);
    await admins.deleteAdministrator({ userId: await idOf('admin'), ...instance });
    const asOwner = server.client(AdministratorService, { token: owner.token });
    await asOwner.deleteAdministrator({ userId: await idOf('admin-machine'), ...instance });
  });

  it('the last owner cannot give up the role, by deletion or by an update', async () => {
    const admins = server.client(AdministratorService, { token: owner.token });
    await expectLastOwner(admins.deleteAdministrator({ userId: owner.userId, ...instance }));
    await expectLastOwner(
      admins.updateAdministrator({ userId: owner.userId, ...instance, roles: ['IAM_USER_MANAGER'] }),
    );
  });

  it('the last owner cannot be deactivated, locked or deleted', async () => {
    const usersApi = server.client(UserService, { token: owner.token });
    await expectLastOwner(usersApi.deactivateUser({ userId: owner.userId }));
    await expectLastOwner(usersApi.lockUser({ userId: owner.userId }));
    await expectLastOwner(usersApi.deleteUser({ userId: owner.userId }));
  });

  it("the last owner's organization cannot be deleted or deactivated", async () => {
    const orgsApi = server.client(OrganizationService, { token: owner.token });
    await expectLastOwner(orgsApi.deleteOrganization({ organizationId: otherOrg }));
    await expectLastOwner(orgsApi.deactivateOrganization({ organizationId: otherOrg }));
    // The organization of the system project (here the default one) is refused as well.
    const system = await failureOf(orgsApi.deleteOrganization({ organizationId: defaultOrg }));
    expect(system?.code).toBe(Code.FailedPrecondition);
  });

  it('after every refusal the last owner still administers the instance', async () => {
    const got = await server.client(InstanceService, { token: owner.token }).getInstance({});
    expect(got.instance?.id).toBe(server.app.deps.instanceId);
    const listed = await server.client(UserService, { token: owner.token }).listUsers({});
    expect(listed.result.some((u) => u.userId === owner.userId)).toBe(true);
  });

  it('two owners removing each other at the same time: exactly one removal succeeds', async () => {
    const second = await addMachineWithToken(server, otherOrg, { username: 'owner-second', roles: ['IAM_OWNER'] });
    const results = await Promise.allSettled([
      server.client(AdministratorService, { token: owner.token }).deleteAdministrator({
        userId: second.userId,
        ...instance,
      }),
      server.client(AdministratorService, { token: second.token }).deleteAdministrator({
        userId: owner.userId,
        ...instance,
      }),
    ]);
    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed).toHaveLength(1);
    // The loser either met the rule or had already lost the role it needed to act.
    const code = (failed[0] as PromiseRejectedResult).reason.code;
    expect([Code.FailedPrecondition, Code.PermissionDenied, Code.NotFound]).toContain(code);
  });
});
