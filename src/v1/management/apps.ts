import { Hono } from 'hono';
import { parseDuration } from '../../domain/validate/duration';
import type { Deps } from '../../deps';
import { createApplication } from '../../domain/application/commands';
import type { AppConfigInput } from '../../domain/application/model';
import { invalidArgument, notFound } from '../../domain/errors';
import { getProject } from '../../domain/project/queries';
import { details, v1Call } from '../context';
import { readJson } from '../request';
import { type Obj, bool, enumValue, str, strings } from '../shape';

/** v1 AddOIDCApp, AddAPIApp and AddSAMLApp: all three are the one v2 CreateApplication. */
export function managementAppRoutes(deps: Deps) {
  const app = new Hono();
  const add = (kind: 'oidc' | 'api' | 'saml', method: string) => async (c: any) => {
    const { ctx, orgId } = await v1Call(deps, c, `management/v1/${method}`);
    const projectId = c.req.param('projectId');
    // Management calls work inside one organization: a project of another one does not exist here.
    const project = await getProject(ctx, projectId);
    if (project.orgId !== orgId) throw notFound('Errors.Project.NotFound', 'project not found');
    const body = await readJson(c);
    const config = kind === 'oidc' ? toOidc(body) : kind === 'api' ? toApi(body) : toSaml(body);
    const created = await createApplication(ctx, { projectId, name: str(body, 'name', '') ?? '', config });
    const out: Record<string, unknown> = {
      appId: created.id,
      details: await details(ctx, { type: 'project', id: projectId }, orgId, { created: created.createdAt }),
    };
    if (kind !== 'saml') {
      out.clientId = created.clientId ?? '';
      out.clientSecret = created.clientSecret ?? '';
    }
    if (kind === 'oidc') {
      out.noneCompliant = created.complianceProblems.length > 0;
      out.complianceProblems = created.complianceProblems.map((p) => ({ key: p.key, localizedMessage: p.message }));
    }
    return c.json(out);
  };
  app.post('/management/v1/projects/:projectId/apps/oidc', add('oidc', 'AddOIDCApp'));
  app.post('/management/v1/projects/:projectId/apps/api', add('api', 'AddAPIApp'));
  app.post('/management/v1/projects/:projectId/apps/saml', add('saml', 'AddSAMLApp'));
  return app;
}

/** A v1 enum value (`OIDC_APP_TYPE_WEB`) → the v2 value (`WEB`); an unknown value names its field. */
function enumOf(
  o: Obj,
  key: string,
  prefix: string,
  allowed: readonly string[],
  renames: Record<string, string> = {},
): string | undefined {
  const v = enumValue(o, key, '', prefix);
  if (v === undefined) return undefined;
  const mapped = renames[v] ?? v;
  if (!allowed.includes(mapped))
    throw invalidArgument('Errors.Application.Invalid', `${key} does not accept ${prefix}${v}`);
  return mapped;
}

function enumsOf(o: Obj, key: string, prefix: string, allowed: readonly string[]): string[] | undefined {
  if (o[key] === undefined) return undefined;
  return strings(o, key, '').map((v) => {
    const bare = v.startsWith(prefix) ? v.slice(prefix.length) : v;
    if (!allowed.includes(bare)) throw invalidArgument('Errors.Application.Invalid', `${key} does not accept ${v}`);
    return bare;
  });
}

export function toOidc(b: Obj): AppConfigInput {
  const skew = str(b, 'clockSkew', '');
  let clockSkewSeconds: number | undefined;
  if (skew) {
    const ms = parseDuration(skew);
    if (ms === undefined)
      throw invalidArgument('Errors.Application.Invalid', `clockSkew must be a duration such as 1s; got "${skew}"`);
    clockSkewSeconds = ms / 1000;
  }
  const oidc: Record<string, unknown> = {
    redirectUris: b.redirectUris === undefined ? undefined : strings(b, 'redirectUris', ''),
    postLogoutRedirectUris:
      b.postLogoutRedirectUris === undefined ? undefined : strings(b, 'postLogoutRedirectUris', ''),
    responseTypes: enumsOf(b, 'responseTypes', 'OIDC_RESPONSE_TYPE_', ['CODE', 'ID_TOKEN', 'ID_TOKEN_TOKEN']),
    grantTypes: enumsOf(b, 'grantTypes', 'OIDC_GRANT_TYPE_', [
      'AUTHORIZATION_CODE',
      'IMPLICIT',
      'REFRESH_TOKEN',
      'TOKEN_EXCHANGE',
    ]),
    applicationType: enumOf(b, 'appType', 'OIDC_APP_TYPE_', ['WEB', 'USER_AGENT', 'NATIVE']),
    authMethodType: enumOf(b, 'authMethodType', 'OIDC_AUTH_METHOD_TYPE_', ['BASIC', 'POST', 'NONE', 'PRIVATE_KEY_JWT']),
    accessTokenType: enumOf(b, 'accessTokenType', 'OIDC_TOKEN_TYPE_', ['BEARER', 'JWT']),
    accessTokenRoleAssertion: bool(b, 'accessTokenRoleAssertion', ''),
    idTokenRoleAssertion: bool(b, 'idTokenRoleAssertion', ''),
    idTokenUserinfoAssertion: bool(b, 'idTokenUserinfoAssertion', ''),
    clockSkewSeconds,
    developmentMode: bool(b, 'devMode', ''),
    additionalOrigins: b.additionalOrigins === undefined ? undefined : strings(b, 'additionalOrigins', ''),
  };
  for (const k of Object.keys(oidc)) if (oidc[k] === undefined) delete oidc[k];
  return { type: 'OIDC', oidc };
}

export function toApi(b: Obj): AppConfigInput {
  const authMethodType = enumOf(b, 'authMethodType', 'API_AUTH_METHOD_TYPE_', ['BASIC', 'PRIVATE_KEY_JWT']);
  return { type: 'API', api: authMethodType ? { authMethodType } : {} };
}

/** metadataXml is protobuf `bytes` (base64 in JSON). */
function toSaml(b: Obj): AppConfigInput {
  const xml = str(b, 'metadataXml', '');
  const url = str(b, 'metadataUrl', '');
  return {
    type: 'SAML',
    saml: xml ? { metadataXml: Buffer.from(xml, 'base64').toString('utf8') } : { metadataUrl: url },
  };
}
