import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../../gen/portcullis/project/v2/project_service_pb';
import { startTestServer, type TestServer } from '../../helpers/server';
import { eventsSince, lastPosition } from '../../helpers/events';

describe('concurrent commands on one project', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('all succeed, each with its event in a gapless sequence', async () => {
    const orgId = (await server.client(OrganizationService).createOrganization({ name: 'Busy' })).organizationId;
    const projects = server.client(ProjectService);
    const { projectId } = await projects.createProject({ organizationId: orgId, name: 'Busy project' });
    const position = await lastPosition(server);
    await Promise.all([
      ...Array.from({ length: 12 }, (_, i) =>
        projects.addProjectRole({ projectId, roleKey: `role-${i}`, displayName: `Role ${i}` }),
      ),
      projects.updateProject({ projectId, name: 'Busy project renamed' }),
    ]);
    expect(Number((await projects.listProjectRoles({ projectId })).pagination?.totalResult)).toBe(12);
    const evs = await eventsSince(server, position);
    expect(evs).toHaveLength(13);
    expect(evs.map((e) => e.sequence).sort((a, b) => a - b)).toEqual(Array.from({ length: 13 }, (_, i) => i + 2));
  });
});
