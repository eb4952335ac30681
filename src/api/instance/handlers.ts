import type { ServiceImpl } from '@connectrpc/connect';
import {
  DynamicRegistration,
  InstanceService,
  SigningAlgorithm,
} from '../../../gen/portcullis/instance/v2/instance_service_pb';
import type { Deps } from '../../deps';
import { getInstance, getInstanceSettingsOf } from '../../domain/instance/queries';
import type { InstanceSettings } from '../../domain/instance/settings';
import {
  type InstanceDomain,
  addTrustedDomain,
  listInstanceDomains,
  removeTrustedDomain,
} from '../../domain/instance/trusted-domains';
import { updateInstance } from '../../domain/instance/update-instance';
import { updateInstanceSettings } from '../../domain/instance/update-settings';
import { initialAccessTokenHash } from '../../domain/instance/dynamic-registration';
import { ctxOf } from '../context';
import { pageIn, pageOut } from '../convert/list';
import { datesOut, ts } from '../convert/time';

const ALGORITHMS: Record<InstanceSettings['signingAlgorithm'], SigningAlgorithm> = {
  RS256: SigningAlgorithm.RS256,
  ES256: SigningAlgorithm.ES256,
  EdDSA: SigningAlgorithm.EDDSA,
};
const ALGORITHM_NAMES = new Map(
  Object.entries(ALGORITHMS).map(([k, v]) => [v, k as InstanceSettings['signingAlgorithm']]),
);

const REGISTRATION: Record<InstanceSettings['dynamicRegistration'], DynamicRegistration> = {
  OFF: DynamicRegistration.OFF,
  OPEN: DynamicRegistration.OPEN,
  INITIAL_ACCESS_TOKEN: DynamicRegistration.INITIAL_ACCESS_TOKEN,
};
const REGISTRATION_NAMES = new Map(
  Object.entries(REGISTRATION).map(([k, v]) => [v, k as InstanceSettings['dynamicRegistration']]),
);

const domainOut = (d: InstanceDomain) => ({
  domain: d.domain,
  isGenerated: d.generated,
  isTrusted: d.trusted,
  creationDate: ts(d.createdAt),
});

// Web key RPCs (ListWebKeys, CreateWebKey, …) are added by the OIDC area, hence Partial.
export function instanceHandlers(deps: Deps): Partial<ServiceImpl<typeof InstanceService>> {
  return {
    async getInstance(_req, hc) {
      const i = await getInstance(ctxOf(deps, hc));
      return {
        instance: {
          id: i.id,
          name: i.name,
          domain: i.domain,
          domains: i.domains,
          defaultOrganizationId: i.defaultOrgId,
          ...datesOut(i),
        },
      };
    },
    async updateInstance(req, hc) {
      const r = await updateInstance(ctxOf(deps, hc), { name: req.instanceName });
      return { changeDate: ts(r.changedAt) };
    },
    async listInstanceDomains(req, hc) {
      const r = await listInstanceDomains(ctxOf(deps, hc), { page: pageIn(req.pagination) });
      return { pagination: pageOut(r), domains: r.items.map(domainOut) };
    },
    async addTrustedDomain(req, hc) {
      const r = await addTrustedDomain(ctxOf(deps, hc), { domain: req.domain });
      return { creationDate: ts(r.createdAt) };
    },
    async removeTrustedDomain(req, hc) {
      const r = await removeTrustedDomain(ctxOf(deps, hc), { domain: req.domain });
      return { deletionDate: ts(r.deletedAt) };
    },
    async getInstanceSettings(_req, hc) {
      const s = await getInstanceSettingsOf(ctxOf(deps, hc));
      // The initial access token is write-only: its hash is never sent, only whether one is set.
      const { dynamicRegistrationInitialAccessTokenHash: tokenHash, ...rest } = s;
      return {
        settings: {
          ...rest,
          signingAlgorithm: ALGORITHMS[s.signingAlgorithm],
          dynamicRegistration: REGISTRATION[s.dynamicRegistration],
          dynamicRegistrationInitialAccessTokenSet: Boolean(tokenHash),
        },
      };
    },
    async updateInstanceSettings(req, hc) {
      const r = await updateInstanceSettings(ctxOf(deps, hc), {
        accessTokenLifetimeSeconds: req.accessTokenLifetimeSeconds,
        idTokenLifetimeSeconds: req.idTokenLifetimeSeconds,
        refreshTokenIdleSeconds: req.refreshTokenIdleSeconds,
        refreshTokenAbsoluteSeconds: req.refreshTokenAbsoluteSeconds,
        passwordMinLength: req.passwordMinLength,
        passwordRequireUppercase: req.passwordRequireUppercase,
        passwordRequireLowercase: req.passwordRequireLowercase,
        passwordRequireNumber: req.passwordRequireNumber,
        passwordRequireSymbol: req.passwordRequireSymbol,
        passwordBlockCommon: req.passwordBlockCommon,
        lockoutMaxPasswordAttempts: req.lockoutMaxPasswordAttempts,
        lockoutMaxOtpAttempts: req.lockoutMaxOtpAttempts,
        impersonationAllowed: req.impersonationAllowed,
        registrationAllowed: req.registrationAllowed,
        loginWithEmailAllowed: req.loginWithEmailAllowed,
        userLoginMustBeDomain: req.userLoginMustBeDomain,
        signingAlgorithm: ALGORITHM_NAMES.get(req.signingAlgorithm),
        rateLimitWindowSeconds: req.rateLimitWindowSeconds,
        tokenRateLimitPerClient: req.tokenRateLimitPerClient,
        tokenRateLimitPerAddress: req.tokenRateLimitPerAddress,
        loginRateLimitPerAddress: req.loginRateLimitPerAddress,
        keysRateLimitPerAddress: req.keysRateLimitPerAddress,
        dynamicRegistration: REGISTRATION_NAMES.get(req.dynamicRegistration),
        dynamicRegistrationProjectId: req.dynamicRegistrationProjectId,
        dynamicRegistrationInitialAccessTokenHash:
          req.dynamicRegistrationInitialAccessToken === undefined
            ? undefined
            : initialAccessTokenHash(req.dynamicRegistrationInitialAccessToken),
        dynamicRegistrationGrantTypes: req.dynamicRegistrationGrantTypes?.values,
        dynamicRegistrationUnusedClientLifetimeSeconds: req.dynamicRegistrationUnusedClientLifetimeSeconds,
        clientIdMetadataDocuments: req.clientIdMetadataDocuments,
        clientIdMetadataDocumentsProjectId: req.clientIdMetadataDocumentsProjectId,
      });
      return { changeDate: ts(r.changedAt) };
    },
  };
}
