import type { MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  GrantState,
  type ProjectGrantSchema,
  type ProjectRoleSchema,
  type ProjectSchema,
  ProjectService,
  ProjectState,
} from '../../../gen/portcullis/project/v2/project_service_pb';
import type { Deps } from '../../deps';
import { invalidArgument } from '../../domain/errors';
import {
  activateProject,
  createProject,
  deactivateProject,
  deleteProject,
  updateProject,
} from '../../domain/project/commands';
import {
  activateProjectGrant,
  createProjectGrant,
  deactivateProjectGrant,
  deleteProjectGrant,
  updateProjectGrant,
} from '../../domain/project/grants';
import {
  type ProjectFilter,
  type ProjectGrantRecord,
  type ProjectRecord,
  type ProjectRole,
  getProject,
  listProjectGrants,
  listProjectRoles,
  listProjects,
} from '../../domain/project/queries';
import { addProjectRole, removeProjectRole, updateProjectRole } from '../../domain/project/roles';
import { ctxOf } from '../context';
import { pageIn, pageOut, textMethodIn } from '../convert/list';
import { datesOut, ts } from '../convert/time';

const PROJECT_STATES: Record<string, ProjectState> = { ACTIVE: ProjectState.ACTIVE, INACTIVE: ProjectState.INACTIVE };
const GRANT_STATES: Record<string, GrantState> = { ACTIVE: GrantState.ACTIVE, INACTIVE: GrantState.INACTIVE };

function projectOut(p: ProjectRecord): MessageInitShape<typeof ProjectSchema> {
  return {
    id: p.id,
    organizationId: p.orgId,
    name: p.name,
    state: PROJECT_STATES[p.state] ?? ProjectState.UNSPECIFIED,
    projectRoleAssertion: p.projectRoleAssertion,
    authorizationRequired: p.authorizationRequired,
    projectAccessRequired: p.projectAccessRequired,
    creationDate: ts(new Date(p.createdAt)),
    changeDate: ts(new Date(p.changedAt)),
    grantedOrganizationId: p.grantedOrgId ?? '',
    grantedOrganizationName: p.grantedOrgName ?? '',
    grantedState: p.grantedState ? (GRANT_STATES[p.grantedState] ?? GrantState.UNSPECIFIED) : GrantState.UNSPECIFIED,
    grantId: p.grantId ?? '',
    grantedRoleKeys: p.grantedRoleKeys ?? [],
  };
}

function roleOut(x: ProjectRole): MessageInitShape<typeof ProjectRoleSchema> {
  return {
    projectId: x.projectId,
    key: x.key,
    displayName: x.displayName,
    group: x.group,
    ...datesOut(x),
  };
}

function grantOut(g: ProjectGrantRecord): MessageInitShape<typeof ProjectGrantSchema> {
  return {
    grantId: g.id,
    projectId: g.projectId,
    projectName: g.projectName,
    organizationId: g.orgId,
    grantedOrganizationId: g.grantedOrgId,
    grantedOrganizationName: g.grantedOrgName,
    roleKeys: g.roleKeys,
    state: GRANT_STATES[g.state] ?? GrantState.UNSPECIFIED,
    ...datesOut(g),
  };
}

/** The grant a request names: a project and the organization it is granted to. */
const grantOf = (req: { projectId: string; grantedOrganizationId: string }) => ({
  projectId: req.projectId,
  grantedOrgId: req.grantedOrganizationId,
});

export function projectHandlers(deps: Deps): ServiceImpl<typeof ProjectService> {
  return {
    async createProject(req, hc) {
      const r = await createProject(ctxOf(deps, hc), {
        orgId: req.organizationId,
        id: req.projectId,
        name: req.name,
        projectRoleAssertion: req.projectRoleAssertion,
        authorizationRequired: req.authorizationRequired,
        projectAccessRequired: req.projectAccessRequired,
      });
      return { projectId: r.id, creationDate: ts(r.createdAt) };
    },
    async getProject(req, hc) {
      return { project: projectOut(await getProject(ctxOf(deps, hc), req.projectId)) };
    },
    async listProjects(req, hc) {
      const filters: ProjectFilter[] = [];
      for (const f of req.filters) {
        switch (f.filter.case) {
          case 'name':
            filters.push({ name: f.filter.value.name, method: textMethodIn(f.filter.value.method) ?? 'equals' });
            break;
          case 'inProjectIds':
            filters.push({ projectIds: f.filter.value.projectIds });
            break;
          case 'projectOrganizationId':
            filters.push({ projectOrgId: f.filter.value.organizationId });
            break;
          case 'projectGrantOrganizationId':
            filters.push({ grantedOrgId: f.filter.value.organizationId });
            break;
          case 'kind':
            if (f.filter.value.ownedOnly && f.filter.value.grantedOnly) {
              throw invalidArgument(
                'Errors.Invalid.filters',
                'filters.kind: owned_only and granted_only exclude each other',
              );
            }
            if (f.filter.value.ownedOnly) filters.push({ ownedOnly: true });
            if (f.filter.value.grantedOnly) filters.push({ grantedOnly: true });
            break;
          default:
            throw invalidArgument('Errors.Invalid.filters', 'filters: empty filter');
        }
      }
      const r = await listProjects(ctxOf(deps, hc), { filters, page: pageIn(req.pagination) });
      return { pagination: pageOut(r), projects: r.items.map(projectOut) };
    },
    async updateProject(req, hc) {
      const r = await updateProject(ctxOf(deps, hc), {
        projectId: req.projectId,
        name: req.name,
        projectRoleAssertion: req.projectRoleAssertion,
        authorizationRequired: req.authorizationRequired,
        projectAccessRequired: req.projectAccessRequired,
      });
      return { changeDate: ts(r.changedAt) };
    },
    async deactivateProject(req, hc) {
      return { changeDate: ts((await deactivateProject(ctxOf(deps, hc), { projectId: req.projectId })).changedAt) };
    },
    async activateProject(req, hc) {
      return { changeDate: ts((await activateProject(ctxOf(deps, hc), { projectId: req.projectId })).changedAt) };
    },
    async deleteProject(req, hc) {
      return { deletionDate: ts((await deleteProject(ctxOf(deps, hc), { projectId: req.projectId })).deletedAt) };
    },
    async addProjectRole(req, hc) {
      const r = await addProjectRole(ctxOf(deps, hc), {
        projectId: req.projectId,
        key: req.roleKey,
        displayName: req.displayName,
        group: req.group,
      });
      return { creationDate: ts(r.createdAt) };
    },
    async updateProjectRole(req, hc) {
      const r = await updateProjectRole(ctxOf(deps, hc), {
        projectId: req.projectId,
        key: req.roleKey,
        displayName: req.displayName,
        group: req.group,
      });
      return { changeDate: ts(r.changedAt) };
    },
    async removeProjectRole(req, hc) {
      const r = await removeProjectRole(ctxOf(deps, hc), { projectId: req.projectId, key: req.roleKey });
      return { removalDate: ts(r.removedAt) };
    },
    async listProjectRoles(req, hc) {
      const r = await listProjectRoles(ctxOf(deps, hc), {
        projectId: req.projectId,
        keyPrefix: req.roleKeyPrefix,
        page: pageIn(req.pagination),
      });
      return { pagination: pageOut(r), projectRoles: r.items.map(roleOut) };
    },
    async createProjectGrant(req, hc) {
      const r = await createProjectGrant(ctxOf(deps, hc), { ...grantOf(req), roleKeys: req.roleKeys });
      return { grantId: r.id, creationDate: ts(r.createdAt) };
    },
    async updateProjectGrant(req, hc) {
      const r = await updateProjectGrant(ctxOf(deps, hc), { ...grantOf(req), roleKeys: req.roleKeys });
      return { changeDate: ts(r.changedAt) };
    },
    async deactivateProjectGrant(req, hc) {
      return { changeDate: ts((await deactivateProjectGrant(ctxOf(deps, hc), grantOf(req))).changedAt) };
    },
    async activateProjectGrant(req, hc) {
      return { changeDate: ts((await activateProjectGrant(ctxOf(deps, hc), grantOf(req))).changedAt) };
    },
    async deleteProjectGrant(req, hc) {
      return { deletionDate: ts((await deleteProjectGrant(ctxOf(deps, hc), grantOf(req))).deletedAt) };
    },
    async listProjectGrants(req, hc) {
      const r = await listProjectGrants(ctxOf(deps, hc), {
        projectId: req.projectId || undefined,
        grantedOrgId: req.grantedOrganizationId || undefined,
        page: pageIn(req.pagination),
      });
      return { pagination: pageOut(r), projectGrants: r.items.map(grantOut) };
    },
  };
}
