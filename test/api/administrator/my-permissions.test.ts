import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService, ResourceType } from '../../../gen/portcullis/administrator/v2/administrator_service_pb';
import { OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { addMachineWithToken } from '../../helpers/machines';
import { addOrg } from '../../helpers/orgs';
import { startTestServer, type TestServer } from '../../helpers/server';

/** ListMyPermissions: what the caller may do, from the one role table — and nothing about anyone else. */
describe('AdministratorService.ListMyPermissions', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('the instance owner: IAM_OWNER on the instance with every permission', async () => {
    const { memberships } = await server.client(AdministratorService).listMyPermissions({});
    const instance = memberships.find((m) => m.resourceType === ResourceType.INSTANCE)!;
    expect(instance.roles).toEqual(['IAM_OWNER']);
    expect(instance.permissions).toContain('iam.write');
    expect(instance.permissions).toContain('org.create');
  });

  it('an organization owner gets their organization only, without instance or other organizations', async () => {
    const mine = await addOrg(server, 'Mine');
    await addOrg(server, 'Theirs');
    const owner = await addMachineWithToken(server, mine.id, { name: 'owner' });
    await server.client(AdministratorService).createAdministrator({
      userId: owner.userId,
      resource: { resource: { case: 'organizationId', value: mine.id } },
      roles: ['ORG_OWNER'],
    });
    const { memberships } = await server.client(AdministratorService, { token: owner.token }).listMyPermissions({});
    expect(memberships).toHaveLength(1);
    expect(memberships[0]).toMatchObject({ resourceType: ResourceType.ORGANIZATION, resourceId: mine.id });
    expect(memberships[0].permissions).toContain('user.write');
    expect(memberships[0].permissions).not.toContain('org.create');
    expect(memberships[0].permissions).not.toContain('iam.write');
    // what it says matches what the API does
    const create = server.client(OrganizationService, { token: owner.token }).createOrganization({ name: 'Nope' });
    await expect(create).rejects.toMatchObject({ code: Code.PermissionDenied });
  });

  it('a user without roles gets an empty list; without a token the call is refused', async () => {
    const plain = await addMachineWithToken(server, (await addOrg(server, 'Plain')).id, { name: 'plain' });
    const { memberships } = await server.client(AdministratorService, { token: plain.token }).listMyPermissions({});
    expect(memberships).toEqual([]);
    const anonymous = server.client(AdministratorService, { token: null }).listMyPermissions({});
    await expect(anonymous).rejects.toBeInstanceOf(ConnectError);
    await expect(anonymous).rejects.toMatchObject({ code: Code.Unauthenticated });
  });
});
