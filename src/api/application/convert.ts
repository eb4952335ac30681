import { create } from '@bufbuild/protobuf';
import { type Duration, DurationSchema, timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  type ApiConfiguration,
  ApiAuthMethodType,
  type Application,
  ApplicationKeySchema,
  ApplicationSchema,
  ApplicationState,
  type ApplicationSearchFilter,
  ApplicationType,
  type OidcConfiguration,
  OidcAccessTokenType,
  OidcApplicationType,
  OidcAuthMethodType,
  OidcGrantType,
  OidcResponseType,
  OidcSecurityProfile,
  type SamlConfiguration,
} from '../../../gen/portcullis/application/v2/application_pb';
import type {
  UpdateApiConfiguration,
  UpdateApplicationRequest,
  UpdateOidcConfiguration,
} from '../../../gen/portcullis/application/v2/application_service_pb';
import { textMethodIn } from '../convert/list';
import type { AppConfigInput, OidcAppConfig } from '../../domain/application/model';
import type { ApplicationFilter, ApplicationKeyView, ApplicationView } from '../../domain/application/queries';
import { invalidArgument } from '../../domain/errors';
import { datesOut } from '../convert/time';

// Proto enums ↔ the names the domain and the database use. UNSPECIFIED and unknown numbers pass
// through as names the domain rejects with INVALID_ARGUMENT naming the field.

type EnumObject = Record<string, string | number>;

function enumName(e: EnumObject, value: number): string {
  const name = e[value];
  return typeof name === 'string' ? name : `UNKNOWN(${value})`;
}

/** An enum scalar: UNSPECIFIED means "use the default / unchanged". */
function optionalEnumName(e: EnumObject, value: number | undefined): string | undefined {
  return value === undefined || value === 0 ? undefined : enumName(e, value);
}

function enumValue<E extends EnumObject>(e: E, name: string | undefined): number {
  const v = name === undefined ? undefined : e[name];
  return typeof v === 'number' ? v : 0;
}

function durationSeconds(d: Duration | undefined): number | undefined {
  return d === undefined ? undefined : Number(d.seconds) + d.nanos / 1e9;
}

function toDuration(seconds: number): Duration {
  const whole = Math.floor(seconds);
  return create(DurationSchema, { seconds: BigInt(whole), nanos: Math.round((seconds - whole) * 1e9) });
}

export function oidcFromProto(c: OidcConfiguration): Partial<OidcAppConfig> {
  return {
    redirectUris: c.redirectUris,
    postLogoutRedirectUris: c.postLogoutRedirectUris,
    responseTypes: c.responseTypes.map((v) => enumName(OidcResponseType, v)),
    grantTypes: c.grantTypes.map((v) => enumName(OidcGrantType, v)),
    applicationType: optionalEnumName(OidcApplicationType, c.applicationType),
    authMethodType: optionalEnumName(OidcAuthMethodType, c.authMethodType),
    accessTokenType: optionalEnumName(OidcAccessTokenType, c.accessTokenType),
    accessTokenRoleAssertion: c.accessTokenRoleAssertion,
    idTokenRoleAssertion: c.idTokenRoleAssertion,
    idTokenUserinfoAssertion: c.idTokenUserinfoAssertion,
    clockSkewSeconds: durationSeconds(c.clockSkew),
    developmentMode: c.developmentMode,
    additionalOrigins: c.additionalOrigins,
    backchannelLogoutUri: c.backchannelLogoutUri,
    backchannelLogoutSessionRequired: c.backchannelLogoutSessionRequired,
    frontchannelLogoutUri: c.frontchannelLogoutUri,
    frontchannelLogoutSessionRequired: c.frontchannelLogoutSessionRequired,
    requirePushedAuthorizationRequests: c.requirePushedAuthorizationRequests,
    dpopBoundAccessTokens: c.dpopBoundAccessTokens,
    securityProfile: optionalEnumName(OidcSecurityProfile, c.securityProfile),
    apiAccess: c.apiAccess,
  };
}

function samlFromProto(c: SamlConfiguration) {
  if (c.metadata.case === 'metadataXml') return { metadataXml: c.metadata.value };
  if (c.metadata.case === 'metadataUrl') return { metadataUrl: c.metadata.value };
  return {};
}

export function configFromProto(
  c:
    | { case: 'oidc'; value: OidcConfiguration }
    | { case: 'saml'; value: SamlConfiguration }
    | { case: 'api'; value: ApiConfiguration }
    | { case: undefined },
): AppConfigInput {
  switch (c.case) {
    case 'oidc':
      return { type: 'OIDC', oidc: oidcFromProto(c.value) };
    case 'saml':
      return { type: 'SAML', saml: samlFromProto(c.value) };
    case 'api':
      return {
        type: 'API',
        api: {
          authMethodType: optionalEnumName(ApiAuthMethodType, c.value.authMethodType),
          resourceUri: c.value.resourceUri || undefined,
        },
      };
    default:
      throw invalidArgument('Errors.Application.Config.Missing', 'one of oidc, saml or api is required');
  }
}

const OIDC_UPDATE_FIELDS: Record<string, keyof OidcAppConfig> = {
  redirect_uris: 'redirectUris',
  post_logout_redirect_uris: 'postLogoutRedirectUris',
  response_types: 'responseTypes',
  grant_types: 'grantTypes',
  application_type: 'applicationType',
  auth_method_type: 'authMethodType',
  access_token_type: 'accessTokenType',
  access_token_role_assertion: 'accessTokenRoleAssertion',
  id_token_role_assertion: 'idTokenRoleAssertion',
  id_token_userinfo_assertion: 'idTokenUserinfoAssertion',
  clock_skew: 'clockSkewSeconds',
  development_mode: 'developmentMode',
  additional_origins: 'additionalOrigins',
  backchannel_logout_uri: 'backchannelLogoutUri',
  backchannel_logout_session_required: 'backchannelLogoutSessionRequired',
  frontchannel_logout_uri: 'frontchannelLogoutUri',
  frontchannel_logout_session_required: 'frontchannelLogoutSessionRequired',
  require_pushed_authorization_requests: 'requirePushedAuthorizationRequests',
  dpop_bound_access_tokens: 'dpopBoundAccessTokens',
  security_profile: 'securityProfile',
  api_access: 'apiAccess',
};

function oidcUpdateValues(c: UpdateOidcConfiguration): Record<keyof OidcAppConfig, unknown> {
  return {
    redirectUris: c.redirectUris,
    postLogoutRedirectUris: c.postLogoutRedirectUris,
    responseTypes: c.responseTypes.map((v) => enumName(OidcResponseType, v)),
    grantTypes: c.grantTypes.map((v) => enumName(OidcGrantType, v)),
    applicationType: c.applicationType === undefined ? undefined : enumName(OidcApplicationType, c.applicationType),
    authMethodType: c.authMethodType === undefined ? undefined : enumName(OidcAuthMethodType, c.authMethodType),
    accessTokenType: c.accessTokenType === undefined ? undefined : enumName(OidcAccessTokenType, c.accessTokenType),
    accessTokenRoleAssertion: c.accessTokenRoleAssertion,
    idTokenRoleAssertion: c.idTokenRoleAssertion,
    idTokenUserinfoAssertion: c.idTokenUserinfoAssertion,
    clockSkewSeconds: durationSeconds(c.clockSkew),
    developmentMode: c.developmentMode,
    additionalOrigins: c.additionalOrigins,
    backchannelLogoutUri: c.backchannelLogoutUri,
    backchannelLogoutSessionRequired: c.backchannelLogoutSessionRequired,
    frontchannelLogoutUri: c.frontchannelLogoutUri,
    frontchannelLogoutSessionRequired: c.frontchannelLogoutSessionRequired,
    requirePushedAuthorizationRequests: c.requirePushedAuthorizationRequests,
    dpopBoundAccessTokens: c.dpopBoundAccessTokens,
    securityProfile: optionalEnumName(OidcSecurityProfile, c.securityProfile),
    apiAccess: c.apiAccess,
  };
}

/**
 * Which fields an UpdateApplication changes. Without update_mask: every set field, and every
 * non-empty list. With update_mask: exactly the named fields (an unset one takes its zero value,
 * so a list can be emptied).
 */
export function updateFromProto(req: UpdateApplicationRequest): { name?: string; config?: AppConfigInput } {
  const mask = req.updateMask?.paths;
  const named = (path: string) => (mask ? mask.includes(path) : undefined);
  if (mask) {
    const prefix = req.configuration.case;
    for (const path of mask) {
      const [head, field] = path.split('.');
      const known =
        path === 'name' ||
        (head === 'oidc' && prefix === 'oidc' && field in OIDC_UPDATE_FIELDS) ||
        (head === 'api' && prefix === 'api' && (field === 'auth_method_type' || field === 'resource_uri')) ||
        (head === 'saml' && prefix === 'saml' && (field === 'metadata_xml' || field === 'metadata_url'));
      if (!known)
        throw invalidArgument(
          'Errors.Application.UpdateMask.Invalid',
          `update_mask names "${path}", which this request cannot change`,
        );
    }
  }
  const out: { name?: string; config?: AppConfigInput } = {};
  if (named('name') ?? req.name !== undefined) out.name = req.name ?? '';
  const c = req.configuration;
  if (c.case === 'oidc') {
    const values = oidcUpdateValues(c.value);
    const oidc: Partial<OidcAppConfig> = {};
    for (const [path, key] of Object.entries(OIDC_UPDATE_FIELDS)) {
      const v = values[key];
      const present = named(`oidc.${path}`) ?? (Array.isArray(v) ? v.length > 0 : v !== undefined);
      if (!present) continue;
      (oidc as Record<string, unknown>)[key] = v ?? zeroOf(key);
    }
    out.config = { type: 'OIDC', oidc };
  } else if (c.case === 'api') {
    out.config = { type: 'API', api: apiUpdate(c.value, named) };
  } else if (c.case === 'saml') {
    out.config = { type: 'SAML', saml: samlFromProto(c.value) };
  }
  return out;
}

function apiUpdate(c: UpdateApiConfiguration, named: (path: string) => boolean | undefined) {
  const out: { authMethodType?: string; resourceUri?: string } = {};
  const method = named('api.auth_method_type');
  if (method === true || (method === undefined && c.authMethodType !== undefined))
    out.authMethodType = enumName(ApiAuthMethodType, c.authMethodType ?? 0);
  // an empty resource_uri removes it
  const resource = named('api.resource_uri');
  if (resource === true || (resource === undefined && c.resourceUri !== undefined))
    out.resourceUri = c.resourceUri ?? '';
  return out;
}

function zeroOf(key: keyof OidcAppConfig): unknown {
  if (key === 'clockSkewSeconds') return 0;
  if (key === 'backchannelLogoutUri' || key === 'frontchannelLogoutUri') return '';
  if (key === 'applicationType' || key === 'authMethodType' || key === 'accessTokenType') return 'UNSPECIFIED';
  if (key === 'securityProfile') return 'NONE';
  return false;
}

export function applicationToProto(a: ApplicationView): Application {
  let configuration: Application['configuration'] = { case: undefined };
  if (a.type === 'OIDC' && a.oidc) {
    const c = a.oidc;
    configuration = {
      case: 'oidc',
      value: {
        $typeName: 'portcullis.application.v2.OidcConfiguration',
        redirectUris: c.redirectUris,
        postLogoutRedirectUris: c.postLogoutRedirectUris,
        responseTypes: c.responseTypes.map((n) => enumValue(OidcResponseType, n)),
        grantTypes: c.grantTypes.map((n) => enumValue(OidcGrantType, n)),
        applicationType: enumValue(OidcApplicationType, c.applicationType),
        authMethodType: enumValue(OidcAuthMethodType, c.authMethodType),
        accessTokenType: enumValue(OidcAccessTokenType, c.accessTokenType),
        accessTokenRoleAssertion: c.accessTokenRoleAssertion,
        idTokenRoleAssertion: c.idTokenRoleAssertion,
        idTokenUserinfoAssertion: c.idTokenUserinfoAssertion,
        clockSkew: toDuration(c.clockSkewSeconds),
        developmentMode: c.developmentMode,
        additionalOrigins: c.additionalOrigins,
        clientId: a.clientId ?? '',
        backchannelLogoutUri: c.backchannelLogoutUri ?? '',
        backchannelLogoutSessionRequired: c.backchannelLogoutSessionRequired ?? false,
        frontchannelLogoutUri: c.frontchannelLogoutUri ?? '',
        frontchannelLogoutSessionRequired: c.frontchannelLogoutSessionRequired ?? false,
        requirePushedAuthorizationRequests: c.requirePushedAuthorizationRequests ?? false,
        dpopBoundAccessTokens: c.dpopBoundAccessTokens ?? false,
        securityProfile: enumValue(OidcSecurityProfile, c.securityProfile ?? 'NONE'),
        apiAccess: c.apiAccess ?? false,
      },
    };
  } else if (a.type === 'SAML' && a.saml) {
    configuration = {
      case: 'saml',
      value: {
        $typeName: 'portcullis.application.v2.SamlConfiguration',
        metadata:
          a.saml.metadataXml !== undefined
            ? { case: 'metadataXml', value: a.saml.metadataXml }
            : a.saml.metadataUrl !== undefined
              ? { case: 'metadataUrl', value: a.saml.metadataUrl }
              : { case: undefined },
      },
    };
  } else if (a.type === 'API' && a.api) {
    configuration = {
      case: 'api',
      value: {
        $typeName: 'portcullis.application.v2.ApiConfiguration',
        authMethodType: enumValue(ApiAuthMethodType, a.api.authMethodType),
        clientId: a.clientId ?? '',
        resourceUri: a.api.resourceUri ?? '',
      },
    };
  }
  return create(ApplicationSchema, {
    applicationId: a.id,
    projectId: a.projectId,
    organizationId: a.orgId,
    name: a.name,
    state: a.state === 'ACTIVE' ? ApplicationState.ACTIVE : ApplicationState.INACTIVE,
    ...datesOut(a),
    hasClientSecret: a.hasSecret,
    complianceProblems: a.complianceProblems,
    configuration,
  });
}

export function filterFromProto(f: ApplicationSearchFilter, index: number): ApplicationFilter {
  const c = f.filter;
  switch (c.case) {
    case 'projectId':
      return { projectId: c.value };
    case 'organizationId':
      return { orgId: c.value };
    case 'name': {
      const method = textMethodIn(c.value.method);
      if (!method) throw invalidArgument('Errors.Filter.Invalid', `filters[${index}].name.method is unknown`);
      return { name: c.value.name, method };
    }
    case 'type': {
      const type = ApplicationType[c.value] as string | undefined;
      if (!type || type === 'UNSPECIFIED')
        throw invalidArgument('Errors.Filter.Invalid', `filters[${index}].type must be OIDC, SAML or API`);
      return { type: type as 'OIDC' | 'SAML' | 'API' };
    }
    default:
      throw invalidArgument('Errors.Filter.Invalid', `filters[${index}] sets no condition`);
  }
}

export function keyToProto(k: ApplicationKeyView) {
  return create(ApplicationKeySchema, {
    keyId: k.id,
    applicationId: k.applicationId,
    clientId: k.clientId,
    creationDate: timestampFromDate(k.createdAt),
    expirationDate: k.expiresAt ? timestampFromDate(k.expiresAt) : undefined,
  });
}
