import type { ServiceImpl } from '@connectrpc/connect';
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  type AdministratorSchema,
  AdministratorService,
  type Resource,
  ResourceType,
} from '../../../gen/portcullis/administrator/v2/administrator_service_pb';
import type { Deps } from '../../deps';
import {
  type ResourceRef,
  createAdministrator,
  deleteAdministrator,
  updateAdministrator,
} from '../../domain/administrator/manage';
import { type AdministratorRecord, listAdministrators } from '../../domain/administrator/queries';
import { ctxOf } from '../context';
import { permissionsOf } from '../../authz/roles';
import { pageIn, pageOut } from '../convert/list';
import { datesOut, ts } from '../convert/time';

function resourceIn(r: Resource | undefined): ResourceRef | undefined {
  switch (r?.resource.case) {
    case 'instance':
      return { instance: true };
    case 'organizationId':
      return { orgId: r.resource.value };
    case 'projectId':
      return { projectId: r.resource.value };
    default:
      return undefined;
  }
}

const TYPES: Record<string, ResourceType> = {
  INSTANCE: ResourceType.INSTANCE,
  ORG: ResourceType.ORGANIZATION,
  PROJECT: ResourceType.PROJECT,
};

function administratorOut(a: AdministratorRecord): MessageInitShape<typeof AdministratorSchema> {
  return {
    userId: a.userId,
    resourceType: TYPES[a.resourceType] ?? ResourceType.UNSPECIFIED,
    resourceId: a.resourceId,
    resourceOwner: a.resourceOwner,
    roles: a.roles,
    ...datesOut(a),
  };
}

export function administratorHandlers(deps: Deps): ServiceImpl<typeof AdministratorService> {
  return {
    async createAdministrator(req, hc) {
      const r = await createAdministrator(ctxOf(deps, hc), {
        userId: req.userId,
        resource: resourceIn(req.resource),
        roles: req.roles,
      });
      return { creationDate: ts(r.createdAt) };
    },
    async updateAdministrator(req, hc) {
      const r = await updateAdministrator(ctxOf(deps, hc), {
        userId: req.userId,
        resource: resourceIn(req.resource),
        roles: req.roles,
      });
      return { changeDate: ts(r.changedAt) };
    },
    async deleteAdministrator(req, hc) {
      const r = await deleteAdministrator(ctxOf(deps, hc), { userId: req.userId, resource: resourceIn(req.resource) });
      return { deletionDate: ts(r.deletedAt) };
    },
    async listAdministrators(req, hc) {
      const r = await listAdministrators(ctxOf(deps, hc), {
        resource: resourceIn(req.resource),
        userId: req.userId || undefined,
        role: req.role || undefined,
        page: pageIn(req.pagination),
      });
      return { pagination: pageOut(r), administrators: r.items.map(administratorOut) };
    },
    async listMyPermissions(_req, hc) {
      const { principal } = ctxOf(deps, hc);
      return {
        memberships: principal.memberships.map((m) => ({
          resourceType: TYPES[m.resourceType] ?? ResourceType.UNSPECIFIED,
          resourceId: m.resourceId,
          resourceOwner: m.resourceOwner,
          roles: m.roles,
          permissions: [...permissionsOf(m.roles)].sort(),
        })),
      };
    },
  };
}
