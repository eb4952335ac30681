import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { AuthorizationService } from '../../gen/portcullis/authorization/v2/authorization_service_pb';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../gen/portcullis/project/v2/project_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { human, post } from './helpers';

const uniq = () => `${Date.now()}${Math.floor(Math.random() * 1e6)}`;

/** One organization as the migration tool writes it, with everything beyond users. */
function orgBody(id: string, extra: Record<string, unknown[]> = {}) {
  const p = `p${id}`;
  return {
    orgId: `o${id}`,
    org: { name: `Resources ${id}` },
    humanUsers: [human(`h${id}`, `res${id}`)],
    projects: [{ projectId: p, project: { name: 'Shop Portal', projectRoleAssertion: true, projectRoleCheck: true } }],
    projectRoles: [
      { projectId: p, roleKey: 'admin', displayName: 'Administrator', group: 'staff' },
      { projectId: p, roleKey: 'viewer', displayName: 'Viewer' },
    ],
    oidcApps: [
      {
        appId: `oa${id}`,
        app: {
          projectId: p,
          name: 'Web',
          redirectUris: ['https://shop.example.com/callback'],
          responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
          grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
          appType: 'OIDC_APP_TYPE_WEB',
          authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
          postLogoutRedirectUris: ['https://shop.example.com/'],
          devMode: false,
          accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
          clockSkew: '1s',
        },
      },
    ],
    apiApps: [
      { appId: `aa${id}`, app: { projectId: p, name: 'Backend', authMethodType: 'API_AUTH_METHOD_TYPE_BASIC' } },
    ],
    userGrants: [{ userId: `h${id}`, projectId: p, roleKeys: ['admin', 'viewer'] }],
    domains: [{ domainName: `shop${id}.example.com`, isVerified: true, isPrimary: true }],
    orgMembers: [{ userId: `h${id}`, roles: ['ORG_OWNER'] }],
    ...extra,
  };
}

describe('POST /admin/v1/import: projects, applications, grants, domains, members', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  async function visible(id: string) {
    const orgId = `o${id}`;
    const projectId = `p${id}`;
    const { projects } = await server.client(ProjectService).listProjects({
      filters: [{ filter: { case: 'projectOrganizationId', value: { organizationId: orgId } } }],
    });
    const { projectRoles } = await server.client(ProjectService).listProjectRoles({ projectId });
    const { applications } = await server
      .client(ApplicationService)
      .listApplications({ filters: [{ filter: { case: 'projectId', value: projectId } }] });
    const { authorizations } = await server.client(AuthorizationService).listAuthorizations({ organizationId: orgId });
    const { domains } = await server.client(OrganizationService).listOrganizationDomains({ organizationId: orgId });
    const { administrators } = await server
      .client(AdministratorService)
      .listAdministrators({ resource: { resource: { case: 'organizationId', value: orgId } } });
    return { projects, projectRoles, applications, authorizations, domains, administrators };
  }

  it('imports every item in the organization and re-running the body creates no duplicates', async () => {
    const id = uniq();
    const body = { dataOrgs: { orgs: [orgBody(id)] } };
    const res = await post(server, '/admin/v1/import', body);
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([]);
    const success = {
      orgId: `o${id}`,
      humanUserIds: [`h${id}`],
      machineUserIds: [],
      userMetadata: [],
      projectIds: [`p${id}`],
      projectRoles: [`p${id}_admin`, `p${id}_viewer`],
      oidcAppIds: [`oa${id}`],
      apiAppIds: [`aa${id}`],
      userGrants: [{ userId: `h${id}`, projectId: `p${id}` }],
      orgMembers: [`h${id}`],
    };
    expect(res.body.success.orgs).toEqual([success]);
    // Secrets are generated but not handed out by the import.
    expect(JSON.stringify(res.body)).not.toMatch(/secret/i);

    const seen = await visible(id);
    expect(
      seen.projects.map((p) => ({
        id: p.id,
        name: p.name,
        assert: p.projectRoleAssertion,
        check: p.authorizationRequired,
      })),
    ).toEqual([{ id: `p${id}`, name: 'Shop Portal', assert: true, check: true }]);
    expect(seen.projectRoles.map((r) => [r.key, r.displayName, r.group]).sort()).toEqual([
      ['admin', 'Administrator', 'staff'],
      ['viewer', 'Viewer', ''],
    ]);
    const apps = seen.applications
      .map((a) => [a.applicationId, a.name, (a.configuration.value as { clientId?: string } | undefined)?.clientId])
      .sort();
    expect(apps).toEqual([
      [`aa${id}`, 'Backend', `aa${id}@shop-portal`],
      [`oa${id}`, 'Web', `oa${id}@shop-portal`],
    ]);
    expect(seen.authorizations.map((a) => [a.userId, a.projectId, [...a.roleKeys].sort()])).toEqual([
      [`h${id}`, `p${id}`, ['admin', 'viewer']],
    ]);
    const domain = seen.domains.find((d) => d.domain === `shop${id}.example.com`);
    expect(domain).toMatchObject({ isPrimary: true, isVerified: true });
    expect(seen.administrators.filter((a) => a.userId === `h${id}`).map((a) => a.roles)).toEqual([['ORG_OWNER']]);

    const events = await post(server, '/admin/v1/events/_search', { aggregateId: `p${id}`, asc: true });
    expect(events.body.events.map((e: any) => e.type.type)).toEqual([
      'project.added',
      'project.role.added',
      'project.role.added',
      'project.application.added',
      'project.application.config.oidc.added',
      'project.application.added',
      'project.application.config.api.added',
    ]);

    const again = await post(server, '/admin/v1/import', body);
    expect(again.status).toBe(200);
    expect(again.body.success.orgs).toEqual([success]);
    expect(again.body.errors).toEqual([
      { type: 'org', id: `o${id}`, message: expect.stringContaining('Errors.Org.AlreadyExisting') },
    ]);
    const after = await visible(id);
    expect(after.projects).toHaveLength(1);
    expect(after.projectRoles).toHaveLength(2);
    expect(after.applications).toHaveLength(2);
    expect(after.authorizations).toHaveLength(1);
    expect(after.domains).toHaveLength(seen.domains.length);
    expect(after.administrators).toHaveLength(seen.administrators.length);
    expect((await post(server, '/admin/v1/events/_search', { aggregateId: `p${id}` })).body.events).toHaveLength(7);
  });

  it('reports a bad item as an error entry and imports the rest', async () => {
    const id = uniq();
    const p = `p${id}`;
    // A domain another organization has verified: it is refused; only that item is lost.
    const taken = `taken${id}.example.com`;
    const other = await post(server, '/admin/v1/import', {
      dataOrgs: {
        orgs: [{ orgId: `x${id}`, org: { name: `Other ${id}` }, domains: [{ domainName: taken, isVerified: true }] }],
      },
    });
    expect(other.body.errors).toEqual([]);
    const body = orgBody(id, {
      domains: [{ domainName: taken }, { domainName: `shop${id}.example.com`, isVerified: true, isPrimary: true }],
      userGrants: [{ userId: `h${id}`, projectId: p, roleKeys: ['nonexistent'] }],
      projectRoles: [
        { projectId: p, roleKey: 'admin', displayName: 'Administrator' },
        { projectId: `missing${id}`, roleKey: 'x', displayName: 'X' },
      ],
      orgMembers: [{ userId: `h${id}`, roles: ['NOT_A_ROLE'] }],
      apiApps: [
        { appId: `aa${id}`, app: { projectId: p, name: 'Backend', authMethodType: 'API_AUTH_METHOD_TYPE_MAGIC' } },
      ],
    });
    const res = await post(server, '/admin/v1/import', { dataOrgs: { orgs: [body] } });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { type: 'project_role', id: `missing${id}_x`, message: expect.stringContaining('Errors.Project.NotFound') },
        { type: 'api_app', id: `aa${id}`, message: expect.stringContaining('Errors.Application.Invalid') },
        { type: 'org_member', id: `h${id}`, message: expect.stringContaining('Errors.Member.Role.Invalid') },
        { type: 'user_grant', id: `h${id}_${p}`, message: expect.stringContaining('Errors.Project.Role.NotFound') },
        { type: 'domain', id: taken, message: expect.stringContaining('Errors.Org.Domain.AlreadyExists') },
      ]),
    );
    expect(res.body.errors).toHaveLength(5);
    expect(res.body.success.orgs).toEqual([
      expect.objectContaining({
        humanUserIds: [`h${id}`],
        projectIds: [p],
        projectRoles: [`${p}_admin`],
        oidcAppIds: [`oa${id}`],
        apiAppIds: [],
        userGrants: [],
        orgMembers: [],
      }),
    ]);
    const seen = await visible(id);
    expect(seen.projectRoles.map((r) => r.key)).toEqual(['admin']);
    expect(seen.applications.map((a) => a.applicationId)).toEqual([`oa${id}`]);
    expect(seen.authorizations).toEqual([]);
    expect(seen.domains.some((d) => d.domain === `shop${id}.example.com` && d.isPrimary)).toBe(true);
    expect(seen.domains.some((d) => d.domain === taken)).toBe(false);
    expect(seen.administrators.filter((a) => a.userId === `h${id}`)).toEqual([]);
  });
});
