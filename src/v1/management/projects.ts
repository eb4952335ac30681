import { type Context, Hono } from 'hono';
import type { Deps } from '../../deps';
import { createProject } from '../../domain/project/commands';
import { type ProjectFilter, type ProjectRecord, listProjects } from '../../domain/project/queries';
import { details, v1Call } from '../context';
import { pageOf, searchAnswer } from '../list';
import { readJson } from '../request';
import { bool, obj, objects, str } from '../shape';

const STATES: Record<string, string> = { ACTIVE: 'PROJECT_STATE_ACTIVE', INACTIVE: 'PROJECT_STATE_INACTIVE' };
const GRANT_STATES: Record<string, string> = {
  ACTIVE: 'PROJECT_GRANT_STATE_ACTIVE',
  INACTIVE: 'PROJECT_GRANT_STATE_INACTIVE',
};

/**
 * v1 ListProjects (owned), ListGrantedProjects (granted to the organization) — both served by the
 * one v2 ListProjects with filters — and AddProject onto CreateProject.
 */
export function managementProjectRoutes(deps: Deps) {
  const app = new Hono();
  app.post('/management/v1/projects', async (c) => {
    const { ctx, orgId } = await v1Call(deps, c, 'management/v1/AddProject');
    const body = await readJson(c);
    const project = await createProject(ctx, {
      orgId,
      name: str(body, 'name', '') ?? '',
      projectRoleAssertion: bool(body, 'projectRoleAssertion', ''),
      authorizationRequired: bool(body, 'projectRoleCheck', ''),
      projectAccessRequired: bool(body, 'hasProjectCheck', ''),
    });
    return c.json({
      id: project.id,
      details: await details(ctx, { type: 'project', id: project.id }, orgId, { created: project.createdAt }),
    });
  });

  // Both searches are ListProjects: the owned projects of the organization, or those granted to it.
  const search =
    (
      service: string,
      scope: (orgId: string) => ProjectFilter[],
      toV1: (p: ProjectRecord, sequence: number) => unknown,
    ) =>
    async (c: Context) => {
      const { ctx, orgId } = await v1Call(deps, c, `management/v1/${service}`);
      const body = await readJson(c);
      const filters = [...scope(orgId), ...nameFilters(body)];
      return c.json(await searchAnswer(ctx, 'project', await listProjects(ctx, { filters, page: pageOf(body) }), toV1));
    };
  app.post(
    '/management/v1/projects/_search',
    search('ListProjects', (orgId) => [{ projectOrgId: orgId }, { ownedOnly: true }], toV1Project),
  );
  app.post(
    '/management/v1/granted_projects/_search',
    search('ListGrantedProjects', (orgId) => [{ grantedOrgId: orgId }], toV1GrantedProject),
  );
  return app;
}

/** v1 `projectNameQuery`s: their method is ignored, the name is matched as contained, ignoring case. */
function nameFilters(body: Record<string, unknown>): ProjectFilter[] {
  return objects(body, 'queries', '').flatMap((q, i) => {
    const name = obj(q, 'projectNameQuery', `queries[${i}]`);
    if (!name) return [];
    return [
      { name: str(name, 'name', `queries[${i}].projectNameQuery`) ?? '', method: 'contains_ignore_case' as const },
    ];
  });
}

function projectDetails(p: ProjectRecord, sequence: number) {
  return {
    sequence: String(sequence),
    creationDate: p.createdAt.toISOString(),
    changeDate: p.changedAt.toISOString(),
    resourceOwner: p.orgId,
  };
}

function toV1Project(p: ProjectRecord, sequence: number) {
  return {
    id: p.id,
    details: projectDetails(p, sequence),
    name: p.name,
    state: STATES[p.state] ?? 'PROJECT_STATE_UNSPECIFIED',
    projectRoleAssertion: p.projectRoleAssertion,
    projectRoleCheck: p.authorizationRequired,
    hasProjectCheck: p.projectAccessRequired,
  };
}

function toV1GrantedProject(p: ProjectRecord, sequence: number) {
  return {
    grantId: p.grantId ?? '',
    grantedOrgId: p.grantedOrgId ?? '',
    grantedOrgName: p.grantedOrgName ?? '',
    grantedRoleKeys: p.grantedRoleKeys ?? [],
    state: GRANT_STATES[p.grantedState ?? ''] ?? 'PROJECT_GRANT_STATE_UNSPECIFIED',
    projectId: p.id,
    projectName: p.name,
    projectOwnerId: p.orgId,
    details: projectDetails(p, sequence),
  };
}
