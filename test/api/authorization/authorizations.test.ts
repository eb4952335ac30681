import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationService } from '../../../gen/portcullis/authorization/v2/authorization_service_pb';
import { OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../../gen/portcullis/project/v2/project_service_pb';
import { startTestServer, type TestServer } from '../../helpers/server';
import { eventsSince, lastPosition } from '../../helpers/events';
import { addMachineWithToken } from '../../helpers/machines';

describe('AuthorizationService', () => {
  let server: TestServer;
  let orgId: string;
  let projectId: string;
  let user: { userId: string; token: string };
  beforeAll(async () => {
    server = await startTestServer();
    orgId = (await server.client(OrganizationService).createOrganization({ name: 'Authz Org' })).organizationId;
    const projects = server.client(ProjectService);
    projectId = (await projects.createProject({ organizationId: orgId, name: 'Authz Project' })).projectId;
    await projects.addProjectRole({ projectId, roleKey: 'reader', displayName: 'Reader' });
    await projects.addProjectRole({ projectId, roleKey: 'writer', displayName: 'Writer' });
    user = await addMachineWithToken(server, orgId, { name: 'authz-user' });
  });
  afterAll(() => server?.stop());

  it('creates, updates, lists and deletes an authorization, with events', async () => {
    const authz = server.client(AuthorizationService);
    const position = await lastPosition(server);
    const { id } = await authz.createAuthorization({ userId: user.userId, projectId, roleKeys: ['reader'] });
    await expect(authz.createAuthorization({ userId: user.userId, projectId, roleKeys: [] })).rejects.toMatchObject({
      code: Code.AlreadyExists,
    });
    await authz.updateAuthorization({ id, roleKeys: ['reader', 'writer'] });
    let list = await authz.listAuthorizations({ userId: user.userId });
    expect(list.authorizations).toHaveLength(1);
    expect(list.authorizations[0]).toMatchObject({
      id,
      userId: user.userId,
      projectId,
      organizationId: orgId,
      projectOrganizationId: orgId,
      roleKeys: ['reader', 'writer'],
    });
    expect((await authz.listAuthorizations({ roleKey: 'writer' })).authorizations.map((a) => a.id)).toEqual([id]);
    expect((await authz.listAuthorizations({ roleKey: 'nope' })).authorizations).toHaveLength(0);
    await authz.deleteAuthorization({ id });
    await authz.deleteAuthorization({ id });
    list = await authz.listAuthorizations({ userId: user.userId });
    expect(list.authorizations).toHaveLength(0);
    const evs = await eventsSince(server, position);
    expect(evs.map((e) => e.eventType)).toEqual([
      'authorization.added',
      'authorization.changed',
      'authorization.removed',
    ]);
    for (const e of evs)
      expect(e).toMatchObject({ aggregateType: 'authorization', aggregateId: id, resourceOwner: orgId });
  });

  it('refuses roles the project does not have, and a failed command leaves no event', async () => {
    const authz = server.client(AuthorizationService);
    const position = await lastPosition(server);
    await expect(
      authz.createAuthorization({ userId: user.userId, projectId, roleKeys: ['reader', 'admin'] }),
    ).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('"admin"'),
    });
    await expect(authz.createAuthorization({ userId: 'ghost', projectId, roleKeys: [] })).rejects.toMatchObject({
      code: Code.NotFound,
    });
    await expect(authz.createAuthorization({ userId: '', projectId, roleKeys: [] })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('user_id'),
    });
    await expect(
      authz.createAuthorization({ userId: user.userId, projectId, organizationId: 'not-granted', roleKeys: [] }),
    ).rejects.toMatchObject({
      code: Code.NotFound,
    });
    expect(await eventsSince(server, position)).toHaveLength(0);
  });

  it('works over gRPC (h2c) too', async () => {
    const grpc = server.client(AuthorizationService, { protocol: 'grpc' });
    const { id } = await grpc.createAuthorization({ userId: user.userId, projectId, roleKeys: ['writer'] });
    const list = await grpc.listAuthorizations({ projectId, pagination: { limit: 10 } });
    expect(list.authorizations.map((a) => a.id)).toEqual([id]);
    expect(Number(list.pagination?.appliedLimit)).toBe(10);
  });
});
