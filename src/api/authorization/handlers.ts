import type { ServiceImpl } from '@connectrpc/connect';
import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  type AuthorizationSchema,
  AuthorizationService,
  AuthorizationState,
} from '../../../gen/portcullis/authorization/v2/authorization_service_pb';
import type { Deps } from '../../deps';
import {
  createAuthorization,
  deleteAuthorization,
  setAuthorizationState,
  updateAuthorization,
} from '../../domain/authorization/commands';
import { type AuthorizationRecord, listAuthorizations } from '../../domain/authorization/queries';
import { ctxOf } from '../context';
import { pageIn, pageOut } from '../convert/list';
import { datesOut, ts } from '../convert/time';

function authorizationOut(a: AuthorizationRecord): MessageInitShape<typeof AuthorizationSchema> {
  return {
    id: a.id,
    userId: a.userId,
    projectId: a.projectId,
    projectOrganizationId: a.projectOrgId,
    organizationId: a.orgId,
    projectGrantId: a.projectGrantId ?? '',
    roleKeys: a.roleKeys,
    state: a.state === 'INACTIVE' ? AuthorizationState.INACTIVE : AuthorizationState.ACTIVE,
    ...datesOut(a),
  };
}

export function authorizationHandlers(deps: Deps): ServiceImpl<typeof AuthorizationService> {
  return {
    async createAuthorization(req, hc) {
      const r = await createAuthorization(ctxOf(deps, hc), {
        userId: req.userId,
        projectId: req.projectId,
        orgId: req.organizationId,
        roleKeys: req.roleKeys,
      });
      return { id: r.id, creationDate: ts(r.createdAt) };
    },
    async updateAuthorization(req, hc) {
      const r = await updateAuthorization(ctxOf(deps, hc), { id: req.id, roleKeys: req.roleKeys });
      return { changeDate: ts(r.changedAt) };
    },
    async deleteAuthorization(req, hc) {
      const r = await deleteAuthorization(ctxOf(deps, hc), { id: req.id });
      return { deletionDate: ts(r.deletedAt) };
    },
    async deactivateAuthorization(req, hc) {
      const r = await setAuthorizationState(ctxOf(deps, hc), { id: req.id, state: 'INACTIVE' });
      return { changeDate: ts(r.changedAt) };
    },
    async activateAuthorization(req, hc) {
      const r = await setAuthorizationState(ctxOf(deps, hc), { id: req.id, state: 'ACTIVE' });
      return { changeDate: ts(r.changedAt) };
    },
    async listAuthorizations(req, hc) {
      const r = await listAuthorizations(ctxOf(deps, hc), {
        userId: req.userId || undefined,
        projectId: req.projectId || undefined,
        orgId: req.organizationId || undefined,
        roleKey: req.roleKey || undefined,
        state:
          req.state === AuthorizationState.ACTIVE
            ? 'ACTIVE'
            : req.state === AuthorizationState.INACTIVE
              ? 'INACTIVE'
              : undefined,
        page: pageIn(req.pagination),
      });
      return { pagination: pageOut(r), authorizations: r.items.map(authorizationOut) };
    },
  };
}
