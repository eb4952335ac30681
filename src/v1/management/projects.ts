import { Hono } from 'hono';
import type { Deps } from '../../deps';
import { createProject } from '../../domain/project/commands';
import { type ProjectRecord, listProjects } from '../../domain/project/queries';
import { details, listDetails, v1Call } from '../context';
import { readJson } from '../request';
import { bool, obj, objects, str } from '../shape';
import { toPage } from './user-convert';
import type { Ctx } from '../../domain/context';

const STATES: Record<string, string> = { ACTIVE: 'PROJECT_STATE_ACTIVE', INACTIVE: 'PROJECT_STATE_INACTIVE' };
const GRANT_STATES: Record<string, string> = { ACTIVE: 'PROJECT_GRANT_STATE_ACTIVE', INACTIVE: 'PROJECT_GRANT_STATE_INACTIVE' };

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
    return c.json({ id: project.id, details: await details(ctx, { type: 'project', id: project.id }, orgId, { created: project.createdAt }) });
  });

  app.post('/management/v1/projects/_search', async (c) => {
    const { ctx, orgId } = await v1Call(deps, c, 'management/v1/ListProjects');
    const body = await readJson(c);
    const found = await listProjects(ctx, { filters: [{ projectOrgId: orgId }, { ownedOnly: true }, ...nameFilters(body, 'projectNameQuery')], page: toPage(body) });
    return c.json({ details: listDetails(found.total), result: await Promise.all(found.items.map((p) => toV1Project(ctx, p))) });
  });

  app.post('/management/v1/granted_projects/_search', async (c) => {
    const { ctx, orgId } = await v1Call(deps, c, 'management/v1/ListGrantedProjects');
    const body = await readJson(c);
    const found = await listProjects(ctx, { filters: [{ grantedOrgId: orgId }, ...nameFilters(body, 'projectNameQuery')], page: toPage(body) });
    return c.json({ details: listDetails(found.total), result: await Promise.all(found.items.map((p) => toV1GrantedProject(ctx, p))) });
  });
  return app;
}

function nameFilters(body: Record<string, unknown>, key: string) {
  return objects(body, 'queries', '').flatMap((q, i) => {
    const name = obj(q, key, `queries[${i}]`);
    return name ? [{ name: str(name, 'name', `queries[${i}].${key}`) ?? '', method: 'contains_ignore_case' as const }] : [];
  });
}

async function toV1Project(ctx: Ctx, p: ProjectRecord) {
  return {
    id: p.id,
    details: await details(ctx, { type: 'project', id: p.id }, p.orgId, { created: p.createdAt, changed: p.changedAt }),
    name: p.name,
    state: STATES[p.state] ?? 'PROJECT_STATE_UNSPECIFIED',
    projectRoleAssertion: p.projectRoleAssertion,
    projectRoleCheck: p.authorizationRequired,
    hasProjectCheck: p.projectAccessRequired,
  };
}

async function toV1GrantedProject(ctx: Ctx, p: ProjectRecord) {
  return {
    grantId: p.grantId ?? '',
    grantedOrgId: p.grantedOrgId ?? '',
    grantedOrgName: p.grantedOrgName ?? '',
    grantedRoleKeys: p.grantedRoleKeys ?? [],
    state: GRANT_STATES[p.grantedState ?? ''] ?? 'PROJECT_GRANT_STATE_UNSPECIFIED',
    projectId: p.id,
    projectName: p.name,
    projectOwnerId: p.orgId,
    details: await details(ctx, { type: 'project', id: p.id }, p.orgId, { created: p.createdAt, changed: p.changedAt }),
  };
}
