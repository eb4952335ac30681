import { Hono } from 'hono';
import type { Deps } from '../../deps';
import { aggregateSequences } from '../../domain/events/sequence';
import { createProject } from '../../domain/project/commands';
import { type ProjectRecord, listProjects } from '../../domain/project/queries';
import { details, listDetails, v1Call } from '../context';
import { readJson } from '../request';
import { bool, obj, objects, str } from '../shape';
import { toPage } from './user-convert';

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

  app.post('/management/v1/projects/_search', async (c) => {
    const { ctx, orgId } = await v1Call(deps, c, 'management/v1/ListProjects');
    const body = await readJson(c);
    const found = await listProjects(ctx, {
      filters: [{ projectOrgId: orgId }, { ownedOnly: true }, ...nameFilters(body, 'projectNameQuery')],
      page: toPage(body),
    });
    const sequences = await aggregateSequences(
      ctx,
      'project',
      found.items.map((p) => p.id),
    );
    return c.json({
      details: listDetails(found.total),
      result: found.items.map((p) => toV1Project(p, sequences.get(p.id) ?? 0)),
    });
  });

  app.post('/management/v1/granted_projects/_search', async (c) => {
    const { ctx, orgId } = await v1Call(deps, c, 'management/v1/ListGrantedProjects');
    const body = await readJson(c);
    const found = await listProjects(ctx, {
      filters: [{ grantedOrgId: orgId }, ...nameFilters(body, 'projectNameQuery')],
      page: toPage(body),
    });
    const sequences = await aggregateSequences(
      ctx,
      'project',
      found.items.map((p) => p.id),
    );
    return c.json({
      details: listDetails(found.total),
      result: found.items.map((p) => toV1GrantedProject(p, sequences.get(p.id) ?? 0)),
    });
  });
  return app;
}

function nameFilters(body: Record<string, unknown>, key: string) {
  return objects(body, 'queries', '').flatMap((q, i) => {
    const name = obj(q, key, `queries[${i}]`);
    return name
      ? [{ name: str(name, 'name', `queries[${i}].${key}`) ?? '', method: 'contains_ignore_case' as const }]
      : [];
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
