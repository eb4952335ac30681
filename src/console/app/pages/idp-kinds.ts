import {
  AzureADTenantType,
  ClientAuthMethod,
  type IdentityProvider,
  SAMLBinding,
  SAMLNameIDFormat,
} from '../../../../gen/portcullis/idp/v2/identity_provider_pb';
import type { Words } from '../i18n';

/** The API's kinds of provider: the cases of the `config` oneof. */
export type Kind = NonNullable<IdentityProvider['config']['case']>;

/** A key of a plain word (not a function) in i18n.ts. */
type Word = { [K in keyof Words]: Words[K] extends string ? K : never }[keyof Words];

/**
 * One configuration field of a kind. `proto` is the field's proto name: the server's validation messages
 * name it so, and its camelCase form is the generated client's. Fields sharing a `oneof` are the choices of
 * that proto oneof: the first with a value is sent, else the last (e.g. a tenant id, else the tenant type).
 */
export type ConfigField = {
  proto: string;
  label: Word;
  input: 'text' | 'url' | 'secret' | 'list' | 'boolean' | 'number' | 'select' | 'textarea';
  /** write-only (the API never returns it; empty in an update keeps the stored one) */
  writeOnly?: boolean;
  /** select: the enum's values with their protocol names (the same in every language) */
  options?: [number, string][];
  oneof?: string;
  /** the value a new provider starts with */
  initial?: string;
};

const clientId: ConfigField = { proto: 'client_id', label: 'clientId', input: 'text' };
const clientSecret: ConfigField = { proto: 'client_secret', label: 'clientSecret', input: 'secret', writeOnly: true };
const scopes: ConfigField = { proto: 'scopes', label: 'scopes', input: 'list' };
const clientAuth: ConfigField = {
  proto: 'client_auth_method',
  label: 'idpClientAuth',
  input: 'select',
  options: [
    [ClientAuthMethod.UNSPECIFIED, 'client_secret_basic'],
    [ClientAuthMethod.POST, 'client_secret_post'],
    [ClientAuthMethod.PRIVATE_KEY_JWT, 'private_key_jwt'],
    [ClientAuthMethod.NONE, 'none'],
  ],
};
const url = (proto: string, label: Word): ConfigField => ({ proto, label, input: 'url' });
const flag = (proto: string, label: Word): ConfigField => ({ proto, label, input: 'boolean' });
const oauthClient = [clientId, clientSecret, scopes];

/**
 * Every kind with its product name (a name, not a word: the same in every language) and the fields the
 * console edits. The claim mapping and an OIDC private key are not edited here: an update keeps them.
 */
export const KINDS: Record<Kind, { name: string; fields: ConfigField[] }> = {
  genericOidc: {
    name: 'OpenID Connect',
    fields: [
      url('issuer', 'issuer'),
      clientId,
      clientSecret,
      clientAuth,
      { ...scopes, initial: 'openid profile email' },
      flag('disable_pkce', 'idpDisablePkce'),
      flag('use_userinfo', 'idpUseUserinfo'),
      flag('email_verified_by_provider', 'idpEmailVerified'),
    ],
  },
  genericOauth: {
    name: 'OAuth 2.0',
    fields: [
      url('authorization_endpoint', 'idpAuthorizationEndpoint'),
      url('token_endpoint', 'idpTokenEndpoint'),
      url('userinfo_endpoint', 'idpUserinfoEndpoint'),
      clientId,
      clientSecret,
      clientAuth,
      scopes,
      { proto: 'id_attribute', label: 'idpIdAttribute', input: 'text' },
      flag('disable_pkce', 'idpDisablePkce'),
      flag('email_verified_by_provider', 'idpEmailVerified'),
    ],
  },
  google: { name: 'Google', fields: oauthClient },
  github: { name: 'GitHub', fields: oauthClient },
  githubEnterprise: {
    name: 'GitHub Enterprise Server',
    fields: [
      clientId,
      clientSecret,
      url('authorization_endpoint', 'idpAuthorizationEndpoint'),
      url('token_endpoint', 'idpTokenEndpoint'),
      url('user_endpoint', 'idpUserEndpoint'),
      scopes,
    ],
  },
  gitlab: { name: 'GitLab', fields: oauthClient },
  gitlabSelfHosted: { name: 'GitLab (self-hosted)', fields: [url('issuer', 'idpGitlabUrl'), ...oauthClient] },
  azureAd: {
    name: 'Microsoft Entra ID',
    fields: [
      clientId,
      clientSecret,
      { proto: 'tenant_id', label: 'idpTenantId', input: 'text', oneof: 'tenant' },
      {
        proto: 'tenant_type',
        label: 'idpTenantType',
        input: 'select',
        oneof: 'tenant',
        options: [
          [AzureADTenantType.AZURE_AD_TENANT_TYPE_COMMON_UNSPECIFIED, 'common'],
          [AzureADTenantType.AZURE_AD_TENANT_TYPE_ORGANIZATIONS, 'organizations'],
          [AzureADTenantType.AZURE_AD_TENANT_TYPE_CONSUMERS, 'consumers'],
        ],
      },
      flag('email_verified', 'idpEmailVerified'),
      scopes,
    ],
  },
  apple: {
    name: 'Apple',
    fields: [
      clientId,
      { proto: 'team_id', label: 'idpTeamId', input: 'text' },
      { proto: 'key_id', label: 'idpKeyId', input: 'text' },
      { proto: 'private_key', label: 'idpPrivateKey', input: 'textarea', writeOnly: true },
      scopes,
    ],
  },
  saml: {
    name: 'SAML 2.0',
    fields: [
      { ...url('metadata_url', 'idpMetadataUrl'), oneof: 'metadata' },
      { proto: 'metadata_xml', label: 'idpMetadataXml', input: 'textarea', oneof: 'metadata' },
      {
        proto: 'binding',
        label: 'idpBinding',
        input: 'select',
        options: [
          [SAMLBinding.SAML_BINDING_REDIRECT_UNSPECIFIED, 'HTTP-Redirect'],
          [SAMLBinding.SAML_BINDING_POST, 'HTTP-POST'],
        ],
      },
      {
        proto: 'name_id_format',
        label: 'idpNameIdFormat',
        input: 'select',
        options: [
          [SAMLNameIDFormat.SAML_NAME_ID_FORMAT_PERSISTENT_UNSPECIFIED, 'persistent'],
          [SAMLNameIDFormat.SAML_NAME_ID_FORMAT_EMAIL_ADDRESS, 'emailAddress'],
          [SAMLNameIDFormat.SAML_NAME_ID_FORMAT_UNSPECIFIED_FORMAT, 'unspecified'],
          [SAMLNameIDFormat.SAML_NAME_ID_FORMAT_TRANSIENT, 'transient'],
        ],
      },
      { proto: 'transient_mapping_attribute_name', label: 'idpTransientAttribute', input: 'text' },
      flag('with_signed_request', 'idpSignRequests'),
      flag('allow_unsigned_assertions', 'idpUnsignedAssertions'),
    ],
  },
  ldap: {
    name: 'LDAP',
    fields: [
      { proto: 'servers', label: 'idpLdapServers', input: 'list' },
      flag('start_tls', 'idpStartTls'),
      { proto: 'base_dn', label: 'idpBaseDn', input: 'text' },
      { proto: 'bind_dn', label: 'idpBindDn', input: 'text' },
      { proto: 'bind_password', label: 'idpBindPassword', input: 'secret', writeOnly: true },
      { proto: 'user_object_classes', label: 'idpObjectClasses', input: 'list' },
      { proto: 'user_filters', label: 'idpUserFilters', input: 'list' },
      { proto: 'timeout_seconds', label: 'idpTimeout', input: 'number' },
      { proto: 'root_ca', label: 'idpRootCa', input: 'textarea' },
    ],
  },
};

/** client_id → clientId: the generated client's name of a proto field. */
export const camel = (proto: string) => proto.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
/** genericOidc → generic_oidc: the request field that holds a kind, as the server's messages name it. */
export const snake = (kind: Kind) => kind.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** What a form holds: strings for inputs and selects, booleans for checkboxes. */
export type Values = Record<string, string | boolean>;

type Config = Record<string, unknown>;

/** The form's values of a kind: the stored configuration's, write-only ones empty, or a new one's. */
export function valuesOf(kind: Kind, stored?: Config): Values {
  const values: Values = {};
  for (const f of KINDS[kind].fields) {
    const chosen = f.oneof && (stored?.[f.oneof] as { case?: string; value?: unknown } | undefined);
    const v = chosen ? (chosen.case === camel(f.proto) ? chosen.value : undefined) : stored?.[camel(f.proto)];
    if (f.input === 'boolean') values[f.proto] = Boolean(v);
    else if (f.writeOnly) values[f.proto] = '';
    else if (f.input === 'list') values[f.proto] = stored ? ((v as string[] | undefined) ?? []).join(' ') : '';
    else if (f.input === 'select') values[f.proto] = String(v ?? 0);
    else if (f.input === 'number') values[f.proto] = v ? String(v) : '';
    else values[f.proto] = (v as string | undefined) ?? '';
    if (!stored && f.initial !== undefined) values[f.proto] = f.initial;
  }
  return values;
}

/**
 * The configuration to send: what the form shows over the stored configuration, so that what it does not
 * show (the claim mapping, a private key) is kept as it was.
 */
export function configOf(kind: Kind, values: Values, stored?: Config): Config {
  const { $typeName: _, ...config } = stored ?? {};
  const fields = KINDS[kind].fields;
  for (const f of fields) {
    const raw = values[f.proto];
    const value =
      f.input === 'list'
        ? String(raw).split(/\s+/).filter(Boolean)
        : f.input === 'select' || f.input === 'number'
          ? Number(raw) || 0
          : raw;
    if (!f.oneof) {
      config[camel(f.proto)] = value;
      continue;
    }
    const group = fields.filter((g) => g.oneof === f.oneof);
    const sent = group.find((g) => values[g.proto] !== '') ?? group[group.length - 1];
    if (sent === f) config[f.oneof] = { case: camel(f.proto), value };
  }
  return config;
}
