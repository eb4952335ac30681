import type { ServiceImpl } from '@connectrpc/connect';
import type { IdentityProviderService } from '../../../gen/portcullis/idp/v2/identity_provider_service_pb';
import type { Deps } from '../../deps';
import { invalidArgument } from '../../domain/errors';
import { createIdentityProvider, deleteIdentityProvider, updateIdentityProvider } from '../../domain/idp/commands';
import { getIdentityProvider, listIdentityProviders } from '../../domain/idp/queries';
import { ctxOf } from '../context';
import { pageIn, pageOut } from '../convert/list';
import { ts } from '../convert/time';
import { optionsIn, providerOut, specIn } from './convert';
import { idpEnvOf } from '../../domain/idp/env';

/** Permissions live in the domain (src/domain/idp/access.ts): the instance's or the organization's. */
export function identityProviderHandlers(deps: Deps): ServiceImpl<typeof IdentityProviderService> {
  return {
    async createIdentityProvider(req, hc) {
      const config = specIn(req.config);
      if (!config) throw invalidArgument('Errors.IdP.Invalid', 'config is required');
      const env = idpEnvOf(deps.config);
      const created = await createIdentityProvider(ctxOf(deps, hc), env, {
        orgId: req.organizationId || undefined,
        name: req.name,
        options: optionsIn(req.options),
        ...config,
      });
      return {
        id: created.id,
        creationDate: ts(created.createdAt),
        callbackUrl: created.callbackUrl,
        samlMetadataUrl: created.samlMetadataUrl ?? '',
      };
    },

    async updateIdentityProvider(req, hc) {
      const config = specIn(req.config);
      const changedAt = await updateIdentityProvider(ctxOf(deps, hc), idpEnvOf(deps.config), {
        id: req.id,
        name: req.name,
        options: optionsIn(req.options),
        spec: config?.spec,
        secrets: config?.secrets ?? {},
      });
      return { changeDate: ts(changedAt) };
    },

    async getIdentityProvider(req, hc) {
      const row = await getIdentityProvider(ctxOf(deps, hc), req.id);
      return { identityProvider: providerOut(deps.config, row) };
    },

    async listIdentityProviders(req, hc) {
      const res = await listIdentityProviders(ctxOf(deps, hc), {
        orgId: req.organizationId || undefined,
        page: pageIn(req.pagination),
      });
      return { pagination: pageOut(res), result: res.items.map((row) => providerOut(deps.config, row)) };
    },

    async deleteIdentityProvider(req, hc) {
      return { deletionDate: ts(await deleteIdentityProvider(ctxOf(deps, hc), req.id)) };
    },
  };
}
