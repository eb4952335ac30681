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

/**
 * How one OIDC setting crosses the API: its field name in the messages (snake_case, as update_mask names
 * it), how a sent value becomes the domain's (undefined: not given), how the domain's value goes out, and
 * what a field named in update_mask but not sent becomes. Parameters are `never` so that each field's own
 * converter fits; the table below applies them to the field of that name.
 */
interface OidcField {
  path: string;
  in: (value: never) => unknown;
  /** UpdateOidcConfiguration's value, where it differs from OidcConfiguration's */
  inUpdate?: (value: never) => unknown;
  out: (value: never) => unknown;
  zero: unknown;
}

const plain = (path: string, zero: unknown): OidcField => ({
  path,
  in: (v: unknown) => v,
  out: (v: unknown) => v ?? zero,
  zero,
});

const enumList = (path: string, e: EnumObject): OidcField => ({
  path,
  in: (v: number[]) => v.map((n) => enumName(e, n)),
  out: (v: string[]) => v.map((n) => enumValue(e, n)),
  zero: [],
});

/** UNSPECIFIED on create means the default; in an update it means "unchanged". */
const enumOne = (path: string, e: EnumObject, zero: string): OidcField => ({
  path,
  in: (v: number | undefined) => optionalEnumName(e, v),
  out: (v: string | undefined) => enumValue(e, v ?? zero),
  zero,
});

/** A type every client has: UNSPECIFIED sent in an update reaches the domain, which refuses it by the field's name. */
const requiredEnum = (path: string, e: EnumObject): OidcField => ({
  ...enumOne(path, e, 'UNSPECIFIED'),
  inUpdate: (v: number | undefined) => (v === undefined ? undefined : enumName(e, v)),
});

/** Every OIDC setting, once: create, update (with and without update_mask) and the answer derive from it. */
const OIDC_FIELDS: Record<keyof OidcAppConfig, OidcField> = {
  redirectUris: plain('redirect_uris', []),
  postLogoutRedirectUris: plain('post_logout_redirect_uris', []),
  responseTypes: enumList('response_types', OidcResponseType),
  grantTypes: enumList('grant_types', OidcGrantType),
  applicationType: requiredEnum('application_type', OidcApplicationType),
  authMethodType: requiredEnum('auth_method_type', OidcAuthMethodType),
  accessTokenType: requiredEnum('access_token_type', OidcAccessTokenType),
  accessTokenRoleAssertion: plain('access_token_role_assertion', false),
  idTokenRoleAssertion: plain('id_token_role_assertion', false),
  idTokenUserinfoAssertion: plain('id_token_userinfo_assertion', false),
  clockSkewSeconds: {
    path: 'clock_skew',
    in: (v: Duration | undefined) => durationSeconds(v),
    out: (v: number) => toDuration(v),
    zero: 0,
  },
  developmentMode: plain('development_mode', false),
  additionalOrigins: plain('additional_origins', []),
  backchannelLogoutUri: plain('backchannel_logout_uri', ''),
  backchannelLogoutSessionRequired: plain('backchannel_logout_session_required', false),
  frontchannelLogoutUri: plain('frontchannel_logout_uri', ''),
  frontchannelLogoutSessionRequired: plain('frontchannel_logout_session_required', false),
  requirePushedAuthorizationRequests: plain('require_pushed_authorization_requests', false),
  dpopBoundAccessTokens: plain('dpop_bound_access_tokens', false),
  securityProfile: enumOne('security_profile', OidcSecurityProfile, 'NONE'),
  apiAccess: plain('api_access', false),
};

const OIDC_ENTRIES = Object.entries(OIDC_FIELDS) as [keyof OidcAppConfig, OidcField][];
const OIDC_PATHS = new Set(OIDC_ENTRIES.map(([, f]) => f.path));

/** The message's field for a snake_case path: clock_skew → clockSkew. */
const protoName = (path: string) => path.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Each OIDC setting of a message in the domain's names and values, undefined where not given. */
function oidcIn(c: OidcConfiguration | UpdateOidcConfiguration, update: boolean): Partial<OidcAppConfig> {
  const fields = c as unknown as Record<string, never>;
  const out: Record<string, unknown> = {};
  for (const [key, f] of OIDC_ENTRIES) out[key] = ((update && f.inUpdate) || f.in)(fields[protoName(f.path)]);
  return out as Partial<OidcAppConfig>;
}

/** OidcConfiguration's settings (all but the client id) from the domain's. */
function oidcOut(c: OidcAppConfig): Omit<OidcConfiguration, '$typeName' | '$unknown' | 'clientId'> {
  const values = c as unknown as Record<keyof OidcAppConfig, never>;
  return Object.fromEntries(OIDC_ENTRIES.map(([key, f]) => [protoName(f.path), f.out(values[key])])) as ReturnType<
    typeof oidcOut
  >;
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
      return { type: 'OIDC', oidc: oidcIn(c.value, false) };
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
        (head === 'oidc' && prefix === 'oidc' && OIDC_PATHS.has(field)) ||
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
    const values = oidcIn(c.value, true);
    const oidc: Partial<OidcAppConfig> = {};
    for (const [key, f] of OIDC_ENTRIES) {
      const v = values[key];
      const present = named(`oidc.${f.path}`) ?? (Array.isArray(v) ? v.length > 0 : v !== undefined);
      if (!present) continue;
      (oidc as Record<string, unknown>)[key] = v ?? f.zero;
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

export function applicationToProto(a: ApplicationView): Application {
  let configuration: Application['configuration'] = { case: undefined };
  if (a.type === 'OIDC' && a.oidc) {
    configuration = {
      case: 'oidc',
      value: {
        $typeName: 'portcullis.application.v2.OidcConfiguration',
        ...oidcOut(a.oidc),
        clientId: a.clientId ?? '',
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
