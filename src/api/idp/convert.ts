import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  AutoLinkingOption,
  AzureADTenantType,
  type ClaimMapping as ClaimMappingProto,
  ClientAuthMethod,
  type IdentityProviderSchema,
  IdentityProviderState,
  IdentityProviderType,
  type Options,
  SAMLBinding,
  SAMLNameIDFormat,
} from '../../../gen/portcullis/idp/v2/identity_provider_pb';
import type { CreateIdentityProviderRequest } from '../../../gen/portcullis/idp/v2/identity_provider_service_pb';
import type { ProviderRow } from '../../domain/idp/access';
import { callbackUrlOf } from '../../domain/idp/commands';
import type { IdpEnv } from '../../domain/idp/env';
import { type ClaimMapping, MAPPED_FIELDS } from '../../domain/idp/external-user';
import type { IdpOptions } from '../../domain/idp/options';
import type { SamlNameIdFormat } from '../../domain/idp/saml/config';
import type { ClientAuth, ProviderSpec, SecretsInput } from '../../domain/idp/spec';

/** The config oneof of CreateIdentityProviderRequest, UpdateIdentityProviderRequest and IdentityProvider. */
type ConfigProto = CreateIdentityProviderRequest['config'];
type ConfigOut = MessageInitShape<typeof IdentityProviderSchema>['config'];

const CLIENT_AUTH: Record<ClientAuthMethod, ClientAuth> = {
  [ClientAuthMethod.UNSPECIFIED]: 'client_secret_basic',
  [ClientAuthMethod.POST]: 'client_secret_post',
  [ClientAuthMethod.PRIVATE_KEY_JWT]: 'private_key_jwt',
  [ClientAuthMethod.NONE]: 'none',
};

const TENANT_TYPES: Record<AzureADTenantType, string> = {
  [AzureADTenantType.AZURE_AD_TENANT_TYPE_COMMON_UNSPECIFIED]: 'common',
  [AzureADTenantType.AZURE_AD_TENANT_TYPE_ORGANIZATIONS]: 'organizations',
  [AzureADTenantType.AZURE_AD_TENANT_TYPE_CONSUMERS]: 'consumers',
};

const NAME_ID_FORMATS: Record<SAMLNameIDFormat, SamlNameIdFormat> = {
  [SAMLNameIDFormat.SAML_NAME_ID_FORMAT_PERSISTENT_UNSPECIFIED]: 'persistent',
  [SAMLNameIDFormat.SAML_NAME_ID_FORMAT_EMAIL_ADDRESS]: 'emailAddress',
  [SAMLNameIDFormat.SAML_NAME_ID_FORMAT_UNSPECIFIED_FORMAT]: 'unspecified',
  [SAMLNameIDFormat.SAML_NAME_ID_FORMAT_TRANSIENT]: 'transient',
};

const AUTO_LINKING: Record<AutoLinkingOption, IdpOptions['autoLinking']> = {
  [AutoLinkingOption.UNSPECIFIED]: 'NONE',
  [AutoLinkingOption.EMAIL]: 'EMAIL',
  [AutoLinkingOption.USERNAME]: 'USERNAME',
};

const TYPES: Record<string, IdentityProviderType> = {
  OIDC: IdentityProviderType.OIDC,
  OAUTH: IdentityProviderType.OAUTH,
  SAML: IdentityProviderType.SAML,
  LDAP: IdentityProviderType.LDAP,
};

/** The inverse of a conversion table; an unknown domain value (never stored by us) becomes 0. */
function reverse<E extends number, V extends string>(table: Record<E, V>, value: V): E {
  const found = Object.entries(table).find(([, v]) => v === value);
  return (found ? Number(found[0]) : 0) as E;
}

/** A number the enum does not know (a newer client) falls back like UNSPECIFIED would. */
const pick = <E extends number, V>(table: Record<E, V>, value: E): V => table[value] ?? table[0 as E];

type MappingField = (typeof MAPPED_FIELDS)[number];

/** Empty proto strings mean "the protocol's default": they are left out of the domain mapping. */
function mappingIn(m: ClaimMappingProto | undefined): ClaimMapping {
  const out: ClaimMapping = {};
  for (const f of MAPPED_FIELDS) if (m?.[f]) out[f] = m[f];
  return out;
}

function mappingOut(m: ClaimMapping | undefined) {
  return Object.fromEntries(MAPPED_FIELDS.map((f) => [f, m?.[f] ?? ''])) as Record<MappingField, string>;
}

export function optionsIn(o: Options | undefined): IdpOptions | undefined {
  if (!o) return undefined;
  return {
    isLinkingAllowed: o.isLinkingAllowed,
    isCreationAllowed: o.isCreationAllowed,
    isAutoCreation: o.isAutoCreation,
    isAutoUpdate: o.isAutoUpdate,
    autoLinking: pick(AUTO_LINKING, o.autoLinking),
    storeTokens: o.storeTokens,
    trustVerifiedEmail: o.trustVerifiedEmail,
  };
}

function optionsOut(o: IdpOptions) {
  return {
    isLinkingAllowed: o.isLinkingAllowed,
    isCreationAllowed: o.isCreationAllowed,
    isAutoCreation: o.isAutoCreation,
    isAutoUpdate: o.isAutoUpdate,
    autoLinking: reverse(AUTO_LINKING, o.autoLinking),
    storeTokens: o.storeTokens,
    trustVerifiedEmail: o.trustVerifiedEmail ?? false,
  };
}

/** The request's configuration as the domain's spec and the write-only secrets; undefined when unset. */
export function specIn(config: ConfigProto): { spec: ProviderSpec; secrets: SecretsInput } | undefined {
  switch (config.case) {
    case 'genericOidc': {
      const c = config.value;
      return {
        spec: {
          kind: 'generic_oidc',
          issuer: c.issuer,
          clientId: c.clientId,
          clientAuth: pick(CLIENT_AUTH, c.clientAuthMethod),
          scopes: c.scopes,
          disablePkce: c.disablePkce,
          useUserinfo: c.useUserinfo,
          emailVerifiedByProvider: c.emailVerifiedByProvider,
          mapping: mappingIn(c.mapping),
        },
        secrets: {
          clientSecret: c.clientSecret,
          privateKey: c.privateKey?.pem ? { pem: c.privateKey.pem, keyId: c.privateKey.keyId } : undefined,
        },
      };
    }
    case 'genericOauth': {
      const c = config.value;
      return {
        spec: {
          kind: 'generic_oauth',
          authorizationEndpoint: c.authorizationEndpoint,
          tokenEndpoint: c.tokenEndpoint,
          userinfoEndpoint: c.userinfoEndpoint,
          clientId: c.clientId,
          clientAuth: pick(CLIENT_AUTH, c.clientAuthMethod),
          scopes: c.scopes,
          idAttribute: c.idAttribute,
          disablePkce: c.disablePkce,
          emailVerifiedByProvider: c.emailVerifiedByProvider,
          mapping: mappingIn(c.mapping),
        },
        secrets: { clientSecret: c.clientSecret },
      };
    }
    case 'google':
    case 'github':
    case 'gitlab': {
      const c = config.value;
      return {
        spec: { kind: config.case, clientId: c.clientId, scopes: c.scopes },
        secrets: { clientSecret: c.clientSecret },
      };
    }
    case 'githubEnterprise': {
      const c = config.value;
      return {
        spec: {
          kind: 'github_enterprise',
          clientId: c.clientId,
          authorizationEndpoint: c.authorizationEndpoint,
          tokenEndpoint: c.tokenEndpoint,
          userEndpoint: c.userEndpoint,
          scopes: c.scopes,
        },
        secrets: { clientSecret: c.clientSecret },
      };
    }
    case 'gitlabSelfHosted': {
      const c = config.value;
      return {
        spec: { kind: 'gitlab_self_hosted', issuer: c.issuer, clientId: c.clientId, scopes: c.scopes },
        secrets: { clientSecret: c.clientSecret },
      };
    }
    case 'azureAd': {
      const c = config.value;
      const tenant =
        c.tenant.case === 'tenantId' && c.tenant.value
          ? c.tenant.value
          : pick(TENANT_TYPES, c.tenant.case === 'tenantType' ? c.tenant.value : 0);
      return {
        spec: { kind: 'azure_ad', clientId: c.clientId, tenant, emailVerified: c.emailVerified, scopes: c.scopes },
        secrets: { clientSecret: c.clientSecret },
      };
    }
    case 'apple': {
      const c = config.value;
      return {
        spec: { kind: 'apple', clientId: c.clientId, teamId: c.teamId, keyId: c.keyId, scopes: c.scopes },
        secrets: { applePrivateKey: c.privateKey },
      };
    }
    case 'saml': {
      const c = config.value;
      return {
        spec: {
          kind: 'saml',
          metadataXml: c.metadata.case === 'metadataXml' ? c.metadata.value : '',
          metadataUrl: c.metadata.case === 'metadataUrl' ? c.metadata.value : undefined,
          binding: c.binding === SAMLBinding.SAML_BINDING_POST ? 'post' : 'redirect',
          signRequests: c.withSignedRequest,
          nameIdFormat: pick(NAME_ID_FORMATS, c.nameIdFormat),
          transientMappingAttributeName: c.transientMappingAttributeName || undefined,
          allowUnsignedAssertions: c.allowUnsignedAssertions,
          mapping: mappingIn(c.mapping),
        },
        secrets: {},
      };
    }
    case 'ldap': {
      const c = config.value;
      return {
        spec: {
          kind: 'ldap',
          servers: c.servers,
          startTls: c.startTls,
          baseDn: c.baseDn,
          bindDn: c.bindDn,
          userObjectClasses: c.userObjectClasses,
          userFilters: c.userFilters,
          timeoutSeconds: c.timeoutSeconds || 10,
          rootCa: c.rootCa || undefined,
          mapping: mappingIn(c.mapping),
        },
        secrets: { bindPassword: c.bindPassword },
      };
    }
    default:
      return undefined;
  }
}

/** The stored spec as the response's oneof; write-only fields stay empty. */
function specOut(spec: ProviderSpec): ConfigOut {
  switch (spec.kind) {
    case 'generic_oidc':
      return {
        case: 'genericOidc',
        value: {
          issuer: spec.issuer,
          clientId: spec.clientId,
          clientAuthMethod: reverse(CLIENT_AUTH, spec.clientAuth),
          scopes: spec.scopes,
          disablePkce: spec.disablePkce,
          useUserinfo: spec.useUserinfo,
          emailVerifiedByProvider: spec.emailVerifiedByProvider,
          mapping: mappingOut(spec.mapping),
        },
      };
    case 'generic_oauth':
      return {
        case: 'genericOauth',
        value: {
          authorizationEndpoint: spec.authorizationEndpoint,
          tokenEndpoint: spec.tokenEndpoint,
          userinfoEndpoint: spec.userinfoEndpoint,
          clientId: spec.clientId,
          clientAuthMethod: reverse(CLIENT_AUTH, spec.clientAuth),
          scopes: spec.scopes,
          idAttribute: spec.idAttribute,
          disablePkce: spec.disablePkce,
          emailVerifiedByProvider: spec.emailVerifiedByProvider,
          mapping: mappingOut(spec.mapping),
        },
      };
    case 'google':
    case 'github':
    case 'gitlab':
      return { case: spec.kind, value: { clientId: spec.clientId, scopes: spec.scopes } };
    case 'github_enterprise':
      return {
        case: 'githubEnterprise',
        value: {
          clientId: spec.clientId,
          authorizationEndpoint: spec.authorizationEndpoint,
          tokenEndpoint: spec.tokenEndpoint,
          userEndpoint: spec.userEndpoint,
          scopes: spec.scopes,
        },
      };
    case 'gitlab_self_hosted':
      return {
        case: 'gitlabSelfHosted',
        value: { issuer: spec.issuer, clientId: spec.clientId, scopes: spec.scopes },
      };
    case 'azure_ad': {
      const type = Object.values(TENANT_TYPES).includes(spec.tenant);
      return {
        case: 'azureAd',
        value: {
          clientId: spec.clientId,
          tenant: type
            ? { case: 'tenantType', value: reverse(TENANT_TYPES, spec.tenant) }
            : { case: 'tenantId', value: spec.tenant },
          emailVerified: spec.emailVerified,
          scopes: spec.scopes,
        },
      };
    }
    case 'apple':
      return {
        case: 'apple',
        value: { clientId: spec.clientId, teamId: spec.teamId, keyId: spec.keyId, scopes: spec.scopes },
      };
    case 'saml':
      return {
        case: 'saml',
        value: {
          metadata: spec.metadataUrl
            ? { case: 'metadataUrl', value: spec.metadataUrl }
            : { case: 'metadataXml', value: spec.metadataXml },
          binding:
            spec.binding === 'post' ? SAMLBinding.SAML_BINDING_POST : SAMLBinding.SAML_BINDING_REDIRECT_UNSPECIFIED,
          withSignedRequest: spec.signRequests,
          nameIdFormat: reverse(NAME_ID_FORMATS, spec.nameIdFormat),
          transientMappingAttributeName: spec.transientMappingAttributeName ?? '',
          allowUnsignedAssertions: spec.allowUnsignedAssertions,
          mapping: mappingOut(spec.mapping),
        },
      };
    case 'ldap':
      return {
        case: 'ldap',
        value: {
          servers: spec.servers,
          startTls: spec.startTls,
          baseDn: spec.baseDn,
          bindDn: spec.bindDn,
          userObjectClasses: spec.userObjectClasses,
          userFilters: spec.userFilters,
          timeoutSeconds: spec.timeoutSeconds,
          rootCa: spec.rootCa ?? '',
          mapping: mappingOut(spec.mapping),
        },
      };
  }
}

/** A stored provider as the API shows it: never a secret (they live only in the sealed column). */
export function providerOut(env: Pick<IdpEnv, 'externalUrl'>, row: ProviderRow) {
  const spec = row.config as unknown as ProviderSpec;
  const urls = callbackUrlOf(env, row.id, spec);
  return {
    id: row.id,
    organizationId: row.orgId ?? '',
    name: row.name,
    type: TYPES[row.type] ?? IdentityProviderType.UNSPECIFIED,
    state: IdentityProviderState.ACTIVE,
    options: optionsOut(row.options),
    config: specOut(spec),
    callbackUrl: urls.callbackUrl,
    samlMetadataUrl: urls.samlMetadataUrl ?? '',
    creationDate: timestampFromDate(row.createdAt),
    changeDate: timestampFromDate(row.changedAt),
  };
}
