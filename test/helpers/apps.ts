import type { OidcAppConfig } from '../../src/db/schema/applications';
import { createApplication } from '../../src/domain/application/commands';
import { createProject } from '../../src/domain/project/commands';
import { defaultOrgId, systemCtx } from './context';
import { unique } from './names';
import type { TestServer } from './server';

export const REDIRECT = 'https://rp.example.com/cb';
export const LOGOUT_REDIRECT = 'https://rp.example.com/logged-out';

/** A project (default organization and a unique name unless given); answers its id. */
export async function addProject(
  server: TestServer,
  opts: { orgId?: string; name?: string; projectRoleAssertion?: boolean; authorizationRequired?: boolean } = {},
): Promise<string> {
  const { orgId, name, ...flags } = opts;
  const { id } = await createProject(systemCtx(server), {
    orgId: orgId ?? (await defaultOrgId(server)),
    name: name ?? unique('project'),
    ...flags,
  });
  return id;
}

/** A confidential OIDC web app allowing code, implicit and refresh, redirecting to REDIRECT. */
export async function addOidcApp(server: TestServer, projectId: string, oidc: Partial<OidcAppConfig> = {}) {
  const app = await createApplication(systemCtx(server), {
    projectId,
    name: unique('app'),
    config: {
      type: 'OIDC',
      oidc: {
        redirectUris: [REDIRECT],
        postLogoutRedirectUris: [LOGOUT_REDIRECT],
        responseTypes: ['CODE', 'ID_TOKEN', 'ID_TOKEN_TOKEN'],
        grantTypes: ['AUTHORIZATION_CODE', 'IMPLICIT', 'REFRESH_TOKEN'],
        authMethodType: 'BASIC',
        ...oidc,
      },
    },
  });
  return { applicationId: app.id, clientId: app.clientId!, clientSecret: app.clientSecret };
}

/** An API app (a resource server that introspects), authenticating with a client secret. */
export async function addApiApp(server: TestServer, projectId: string) {
  const app = await createApplication(systemCtx(server), {
    projectId,
    name: unique('api'),
    config: { type: 'API', api: { authMethodType: 'BASIC' } },
  });
  return { applicationId: app.id, clientId: app.clientId!, clientSecret: app.clientSecret! };
}

/**
 * Makes an OIDC app an API client (its users' tokens may carry the API audience), as an instance
 * administrator does: UpdateApplication with oidc.api_access through the API, with the admin's PAT.
 */
export async function markApiClient(server: TestServer, applicationId: string, apiAccess = true) {
  const { ApplicationService } = await import('../../gen/portcullis/application/v2/application_service_pb');
  await server.client(ApplicationService).updateApplication({
    applicationId,
    updateMask: { paths: ['oidc.api_access'] },
    configuration: { case: 'oidc', value: { apiAccess } },
  });
}
