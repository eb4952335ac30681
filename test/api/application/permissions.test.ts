import { Code, type Client } from '@connectrpc/connect';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcAuthMethodType } from '../../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../../gen/portcullis/application/v2/application_service_pb';
import { events } from '../../../src/db/schema/index';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addProject } from '../../helpers/apps';
import { defaultOrgId } from '../../helpers/context';
import { addMachineWithToken, type Membership } from '../../helpers/machines';
import { addOrg } from '../../helpers/orgs';

describe('ApplicationService permissions', () => {
  let server: TestServer;
  let admin: Client<typeof ApplicationService>;
  let orgA: string;
  let orgB: string;
  let projectA: string;
  let projectA2: string;
  let projectB: string;
  let appA: string;
  let appA2: string;
  let appB: string;
  let adminB: Client<typeof ApplicationService>;
  let nobody: Client<typeof ApplicationService>;
  let ownerA2: Client<typeof ApplicationService>;
  let viewerA2: Client<typeof ApplicationService>;

  const keyApp = (projectId: string, name: string) =>
    admin.createApplication({
      projectId,
      name,
      configuration: {
        case: 'oidc',
        value: { redirectUris: ['https://x.example.com/cb'], authMethodType: OidcAuthMethodType.PRIVATE_KEY_JWT },
      },
    });

  beforeAll(async () => {
    server = await startTestServer();
    admin = server.client(ApplicationService);
    orgA = await defaultOrgId(server);
    orgB = (await addOrg(server, 'Org B')).id;
    projectA = await addProject(server, { orgId: orgA, name: 'A one' });
    projectA2 = await addProject(server, { orgId: orgA, name: 'A two' });
    projectB = await addProject(server, { orgId: orgB, name: 'B one' });
    appA = (await keyApp(projectA, 'App A')).applicationId;
    appA2 = (await keyApp(projectA2, 'App A2')).applicationId;
    appB = (await keyApp(projectB, 'App B')).applicationId;
    const clientFor = async (orgId: string, membership?: Membership) =>
      server.client(ApplicationService, {
        token: (await addMachineWithToken(server, orgId, { membership })).token,
        protocol: 'grpc',
      });
    adminB = await clientFor(orgB, {
      resourceType: 'ORG',
      resourceId: orgB,
      resourceOwner: orgB,
      roles: ['ORG_OWNER'],
    });
    nobody = await clientFor(orgA);
    ownerA2 = await clientFor(orgA, {
      resourceType: 'PROJECT',
      resourceId: projectA2,
      resourceOwner: orgA,
      roles: ['PROJECT_OWNER'],
    });
    viewerA2 = await clientFor(orgA, {
      resourceType: 'PROJECT',
      resourceId: projectA2,
      resourceOwner: orgA,
      roles: ['PROJECT_OWNER_VIEWER'],
    });
  });
  afterAll(() => server?.stop());

  const ids = async (client: Client<typeof ApplicationService>) =>
    (await client.listApplications({})).applications.map((a) => a.applicationId).sort();

  it('an org admin of org B sees and manages only org B applications', async () => {
    expect(await ids(adminB)).toEqual([appB]);
    const filtered = await adminB.listApplications({ filters: [{ filter: { case: 'projectId', value: projectA } }] });
    expect(filtered.applications).toEqual([]);
    expect(filtered.pagination?.totalResult).toBe(0n);
    expect((await adminB.getApplication({ applicationId: appB })).application?.name).toBe('App B');
    const created = await adminB.createApplication({
      projectId: projectB,
      name: 'B made',
      configuration: { case: 'api', value: {} },
    });
    expect(created.applicationId).toBeTruthy();
  });

  it('an admin of org B cannot read, change, delete or create anything of org A: NOT_FOUND, never data', async () => {
    const attempts: [string, () => Promise<unknown>][] = [
      ['get', () => adminB.getApplication({ applicationId: appA })],
      ['update', () => adminB.updateApplication({ applicationId: appA, name: 'stolen' })],
      ['deactivate', () => adminB.deactivateApplication({ applicationId: appA })],
      ['reactivate', () => adminB.reactivateApplication({ applicationId: appA })],
      ['delete', () => adminB.deleteApplication({ applicationId: appA })],
      ['secret', () => adminB.generateClientSecret({ applicationId: appA })],
      ['create key', () => adminB.createApplicationKey({ applicationId: appA })],
      ['list keys', () => adminB.listApplicationKeys({ applicationId: appA })],
      ['delete key', () => adminB.deleteApplicationKey({ applicationId: appA, keyId: 'x' })],
      [
        'create in A',
        () => adminB.createApplication({ projectId: projectA, name: 'x', configuration: { case: 'api', value: {} } }),
      ],
    ];
    for (const [name, call] of attempts) {
      const err = await call().then(
        () => undefined,
        (e) => e,
      );
      expect({ name, code: err?.code }).toEqual({ name, code: Code.NotFound });
    }
    const app = (await admin.getApplication({ applicationId: appA })).application!;
    expect(app.name).toBe('App A');
    expect(app.state).toBe(1);
    const editors = await server.app.database.db
      .select({ type: events.eventType })
      .from(events)
      .where(eq(events.aggregateId, projectA));
    expect(editors.map((e) => e.type)).not.toContain('project.application.removed');
  });

  it('the instance admin sees every organization’s applications', async () => {
    const all = await ids(admin);
    expect(all).toEqual(expect.arrayContaining([appA, appA2, appB]));
  });

  it('a user without roles sees no applications', async () => {
    expect(await ids(nobody)).toEqual([]);
    await expect(nobody.getApplication({ applicationId: appA })).rejects.toMatchObject({ code: Code.NotFound });
    await expect(
      nobody.createApplication({ projectId: projectA, name: 'x', configuration: { case: 'api', value: {} } }),
    ).rejects.toMatchObject({ code: Code.NotFound });
  });

  it('a project owner manages that project’s applications only; a viewer may only read', async () => {
    expect(await ids(ownerA2)).toEqual([appA2]);
    await ownerA2.updateApplication({ applicationId: appA2, name: 'Renamed by owner' });
    await ownerA2.createApplicationKey({ applicationId: appA2 });
    await expect(ownerA2.getApplication({ applicationId: appA })).rejects.toMatchObject({ code: Code.NotFound });

    expect(await ids(viewerA2)).toEqual([appA2]);
    expect((await viewerA2.getApplication({ applicationId: appA2 })).application?.name).toBe('Renamed by owner');
    expect((await viewerA2.listApplicationKeys({ applicationId: appA2 })).keys).toHaveLength(1);
    for (const call of [
      () => viewerA2.updateApplication({ applicationId: appA2, name: 'nope' }),
      () => viewerA2.deleteApplication({ applicationId: appA2 }),
      () => viewerA2.createApplication({ projectId: projectA2, name: 'x', configuration: { case: 'api', value: {} } }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: Code.PermissionDenied });
    }
  });

  it('rejects calls without a valid token', async () => {
    const anonymous = server.client(ApplicationService, { token: null });
    await expect(anonymous.listApplications({})).rejects.toMatchObject({ code: Code.Unauthenticated });
  });
});
