import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { createProject } from '../../src/domain/project/commands';
import { activateProjectGrant, createProjectGrant, deactivateProjectGrant } from '../../src/domain/project/grants';
import { startTestServer, type TestServer } from '../helpers/server';
import { addOidcApp } from '../helpers/apps';
import { defaultOrgId, systemCtx } from '../helpers/context';
import { rp, signedInSubject } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

/**
 * project_access_required: only users of the owning organization and of organizations holding an
 * active grant of the project get tokens for its applications.
 */
describe('project access required', () => {
  let server: TestServer;
  let config: client.Configuration;
  let projectId: string;
  beforeAll(async () => {
    server = await startTestServer();
    const orgId = await defaultOrgId(server);
    ({ id: projectId } = await createProject(systemCtx(server), {
      orgId,
      name: `guarded-${Date.now()}`,
      projectAccessRequired: true,
    }));
    const app = await addOidcApp(server, projectId);
    config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
  });
  afterAll(() => server?.stop());

  const orgs = () => server.client(OrganizationService);
  const loginName = async (u: { username: string; orgId: string }) =>
    `${u.username}@${(await orgs().getOrganization({ organizationId: u.orgId })).organization!.primaryDomain}`;
  const signIn = async (u: { username: string; orgId: string; password: string }) =>
    signedInSubject(server, config, await loginName(u), u.password);

  it('the owning organization signs in; another one only while its grant is active', async () => {
    const owner = await addUser(server);
    expect(await signIn(owner)).toBe(owner.id);

    const other = (await orgs().createOrganization({ name: `Guest ${Date.now()}` })).organizationId;
    const guest = await addUser(server, { orgId: other });
    expect(await signIn(guest)).toBeUndefined();

    const ctx = systemCtx(server);
    await createProjectGrant(ctx, { projectId, grantedOrgId: other, roleKeys: [] });
    expect(await signIn(guest)).toBe(guest.id);
    await deactivateProjectGrant(ctx, { projectId, grantedOrgId: other });
    expect(await signIn(guest)).toBeUndefined();
    await activateProjectGrant(ctx, { projectId, grantedOrgId: other });
    expect(await signIn(guest)).toBe(guest.id);
  });
});
