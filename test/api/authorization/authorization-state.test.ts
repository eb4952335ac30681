import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthorizationService,
  AuthorizationState,
} from '../../../gen/portcullis/authorization/v2/authorization_service_pb';
import { OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../../gen/portcullis/project/v2/project_service_pb';
import { eventsSince, lastPosition } from '../../helpers/events';
import { addMachineWithToken } from '../../helpers/machines';
import { startTestServer, type TestServer } from '../../helpers/server';

/** DeactivateAuthorization / ActivateAuthorization: the state, its list filter, its events, and who may. */
describe('AuthorizationService: authorization state', () => {
  let server: TestServer;
  let orgId: string;
  let projectId: string;
  let user: { userId: string; token: string };
  beforeAll(async () => {
    server = await startTestServer();
    orgId = (await server.client(OrganizationService).createOrganization({ name: 'State Org' })).organizationId;
    projectId = (await server.client(ProjectService).createProject({ organizationId: orgId, name: 'State Project' }))
      .projectId;
    await server.client(ProjectService).addProjectRole({ projectId, roleKey: 'reader', displayName: 'Reader' });
    user = await addMachineWithToken(server, orgId, { name: 'state-user' });
  });
  afterAll(() => server?.stop());

  it('deactivates and activates an authorization, listed by state, with events; twice is refused', async () => {
    const authz = server.client(AuthorizationService);
    const { id } = await authz.createAuthorization({ userId: user.userId, projectId, roleKeys: ['reader'] });
    const position = await lastPosition(server);
    await authz.deactivateAuthorization({ id });
    await expect(authz.deactivateAuthorization({ id })).rejects.toMatchObject({ code: Code.FailedPrecondition });
    const inactive = await authz.listAuthorizations({ projectId, state: AuthorizationState.INACTIVE });
    expect(inactive.authorizations.map((a) => [a.id, a.state, a.roleKeys])).toEqual([
      [id, AuthorizationState.INACTIVE, ['reader']],
    ]);
    expect((await authz.listAuthorizations({ projectId, state: AuthorizationState.ACTIVE })).authorizations).toEqual(
      [],
    );
    await authz.activateAuthorization({ id });
    await expect(authz.activateAuthorization({ id })).rejects.toMatchObject({ code: Code.FailedPrecondition });
    expect((await authz.listAuthorizations({ projectId })).authorizations.map((a) => a.state)).toEqual([
      AuthorizationState.ACTIVE,
    ]);
    const evs = await eventsSince(server, position);
    expect(evs.map((e) => e.eventType)).toEqual(['authorization.deactivated', 'authorization.reactivated']);
    for (const e of evs) expect(e).toMatchObject({ aggregateId: id, resourceOwner: orgId });
  });

  it('refuses a caller without authorization.write: the user itself, a reader, another organization', async () => {
    const authz = server.client(AuthorizationService);
    const holder = await addMachineWithToken(server, orgId, { name: 'holder' });
    const { id } = await authz.createAuthorization({ userId: holder.userId, projectId, roleKeys: [] });
    const viewer = await addMachineWithToken(server, orgId, {
      name: 'viewer',
      membership: {
        resourceType: 'PROJECT',
        resourceId: projectId,
        resourceOwner: orgId,
        roles: ['PROJECT_OWNER_VIEWER'],
      },
    });
    const otherOrg = (await server.client(OrganizationService).createOrganization({ name: 'Other State Org' }))
      .organizationId;
    const stranger = await addMachineWithToken(server, otherOrg, { name: 'stranger', roles: ['ORG_OWNER'] });
    const position = await lastPosition(server);
    // the user sees its own authorization but may not switch it
    await expect(
      server.client(AuthorizationService, { token: holder.token }).deactivateAuthorization({ id }),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(
      server.client(AuthorizationService, { token: viewer.token }).deactivateAuthorization({ id }),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
    // another organization's owner does not learn it exists
    await expect(
      server.client(AuthorizationService, { token: stranger.token }).deactivateAuthorization({ id }),
    ).rejects.toMatchObject({ code: Code.NotFound });
    expect(await eventsSince(server, position)).toHaveLength(0);
    const [a] = (await authz.listAuthorizations({ userId: holder.userId, projectId })).authorizations;
    expect(a.state).toBe(AuthorizationState.ACTIVE);
  });
});
