import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { ApplicationKeyFileSchema } from '../../../gen/portcullis/application/v2/application_pb';
import {
  ApplicationService,
  type CreateApplicationResponseSchema,
} from '../../../gen/portcullis/application/v2/application_service_pb';
import type { Deps } from '../../deps';
import {
  createApplication,
  deactivateApplication,
  deleteApplication,
  generateClientSecret,
  reactivateApplication,
  updateApplication,
} from '../../domain/application/commands';
import { createApplicationKey, deleteApplicationKey } from '../../domain/application/keys';
import { getApplication, listApplications, listKeysOfApplication } from '../../domain/application/queries';
import { ctxOf } from '../context';
import { pageIn, pageOut } from '../convert/list';
import { applicationToProto, configFromProto, filterFromProto, keyToProto, updateFromProto } from './convert';

/** Permissions live in the domain: reading needs project.app.read, changing project.app.write. */
export function applicationHandlers(deps: Deps): ServiceImpl<typeof ApplicationService> {
  return {
    async createApplication(req, hc) {
      const created = await createApplication(ctxOf(deps, hc), {
        projectId: req.projectId,
        applicationId: req.applicationId || undefined,
        name: req.name,
        config: configFromProto(req.configuration),
      });
      let configuration: MessageInitShape<typeof CreateApplicationResponseSchema>['configuration'];
      if (created.type === 'OIDC') {
        configuration = {
          case: 'oidc',
          value: {
            clientId: created.clientId ?? '',
            clientSecret: created.clientSecret,
            complianceProblems: created.complianceProblems,
          },
        };
      } else if (created.type === 'API') {
        configuration = {
          case: 'api',
          value: { clientId: created.clientId ?? '', clientSecret: created.clientSecret },
        };
      } else {
        configuration = { case: 'saml', value: {} };
      }
      return { applicationId: created.id, creationDate: timestampFromDate(created.createdAt), configuration };
    },

    async getApplication(req, hc) {
      return { application: applicationToProto(await getApplication(ctxOf(deps, hc), req.applicationId)) };
    },

    async listApplications(req, hc) {
      const res = await listApplications(ctxOf(deps, hc), {
        page: pageIn(req.pagination),
        filters: req.filters.map(filterFromProto),
      });
      return {
        pagination: pageOut(res),
        applications: res.items.map(applicationToProto),
      };
    },

    async updateApplication(req, hc) {
      const res = await updateApplication(ctxOf(deps, hc), {
        applicationId: req.applicationId,
        ...updateFromProto(req),
        validateOnly: req.validateOnly,
      });
      return {
        changeDate: timestampFromDate(res.changedAt),
        clientSecret: res.clientSecret,
        complianceProblems: res.complianceProblems,
      };
    },

    async deactivateApplication(req, hc) {
      const res = await deactivateApplication(ctxOf(deps, hc), req.applicationId);
      return { changeDate: timestampFromDate(res.changedAt) };
    },

    async reactivateApplication(req, hc) {
      const res = await reactivateApplication(ctxOf(deps, hc), req.applicationId);
      return { changeDate: timestampFromDate(res.changedAt) };
    },

    async deleteApplication(req, hc) {
      const res = await deleteApplication(ctxOf(deps, hc), req.applicationId);
      return { deletionDate: timestampFromDate(res.deletedAt) };
    },

    async generateClientSecret(req, hc) {
      const res = await generateClientSecret(ctxOf(deps, hc), req.applicationId);
      return { clientSecret: res.clientSecret, creationDate: timestampFromDate(res.createdAt) };
    },

    async createApplicationKey(req, hc) {
      const res = await createApplicationKey(ctxOf(deps, hc), {
        applicationId: req.applicationId,
        expiresAt: req.expirationDate ? timestampDate(req.expirationDate) : undefined,
      });
      return {
        keyId: res.keyId,
        creationDate: timestampFromDate(res.createdAt),
        keyFile: create(ApplicationKeyFileSchema, res.keyFile),
      };
    },

    async listApplicationKeys(req, hc) {
      const res = await listKeysOfApplication(ctxOf(deps, hc), req.applicationId, pageIn(req.pagination));
      return {
        pagination: pageOut(res),
        keys: res.items.map(keyToProto),
      };
    },

    async deleteApplicationKey(req, hc) {
      const res = await deleteApplicationKey(ctxOf(deps, hc), { applicationId: req.applicationId, keyId: req.keyId });
      return { deletionDate: timestampFromDate(res.deletedAt) };
    },
  };
}
