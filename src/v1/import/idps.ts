import { DomainError, invalidArgument } from '../../domain/errors';
import { type ClaimMapping, MAPPED_FIELDS } from '../../domain/idp/external-user';
import { DEFAULT_OPTIONS, type IdpOptions } from '../../domain/idp/options';
import type { ClientAuth, ProviderSpec, SecretsInput } from '../../domain/idp/spec';
import type { ImportIdp, ImportUserLink } from '../../domain/import/model';
import { checkId } from '../../domain/user/validate';
import { type Obj, bool, enumValue, id, int, obj, str, strings } from '../shape';

/**
 * The import body's identity providers: `idps` items in the shape of the v2
 * CreateIdentityProviderRequest (camelCase JSON, one configuration by its field name), and the v1
 * `oidcIdps` items of the system whose body this import reads. A provider whose configuration cannot
 * be read becomes its item's error; the rest of the body is imported.
 */

type Provider = Exclude<ImportIdp['provider'], { invalid: string }>;

const invalid = (msg: string) => invalidArgument('Errors.IdP.Invalid', msg);

/** Reads one item; a DomainError while reading its configuration becomes the item's error key. */
function item(o: Obj, path: string, read: () => Provider): ImportIdp {
  const idpId = id(o, 'idpId', path);
  if (!idpId) throw invalidArgument('Errors.Import.Invalid', `${path}.idpId is required`);
  try {
    checkId(`${path}.idpId`, idpId);
    return { idpId, provider: read() };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { idpId, provider: { invalid: err.key === 'Errors.Request.InvalidShape' ? 'Errors.IdP.Invalid' : err.key } };
  }
}

const AUTO_LINKING = { EMAIL: 'EMAIL', USERNAME: 'USERNAME', NONE: 'NONE' } as const;

function options(o: Obj | undefined, path: string): IdpOptions {
  if (!o) return DEFAULT_OPTIONS;
  const auto = enumValue(o, 'autoLinking', path, 'AUTO_LINKING_OPTION_') ?? 'NONE';
  if (!(auto in AUTO_LINKING)) throw invalid(`${path}.autoLinking must be NONE, EMAIL or USERNAME`);
  return {
    isLinkingAllowed: bool(o, 'isLinkingAllowed', path) ?? DEFAULT_OPTIONS.isLinkingAllowed,
    isCreationAllowed: bool(o, 'isCreationAllowed', path) ?? DEFAULT_OPTIONS.isCreationAllowed,
    isAutoCreation: bool(o, 'isAutoCreation', path) ?? DEFAULT_OPTIONS.isAutoCreation,
    isAutoUpdate: bool(o, 'isAutoUpdate', path) ?? DEFAULT_OPTIONS.isAutoUpdate,
    autoLinking: AUTO_LINKING[auto as keyof typeof AUTO_LINKING],
    storeTokens: bool(o, 'storeTokens', path) ?? DEFAULT_OPTIONS.storeTokens,
  };
}

function mapping(o: Obj, path: string): ClaimMapping {
  const m = obj(o, 'mapping', path) ?? {};
  const out: ClaimMapping = {};
  for (const f of MAPPED_FIELDS) {
    const v = str(m, f, `${path}.mapping`);
    if (v) out[f] = v;
  }
  return out;
}

const CLIENT_AUTH: Record<string, ClientAuth> = {
  BASIC: 'client_secret_basic',
  CLIENT_SECRET_BASIC: 'client_secret_basic',
  POST: 'client_secret_post',
  CLIENT_SECRET_POST: 'client_secret_post',
  PRIVATE_KEY_JWT: 'private_key_jwt',
  NONE: 'none',
};

function clientAuth(o: Obj, path: string): ClientAuth {
  const v = enumValue(o, 'clientAuthMethod', path, 'CLIENT_AUTH_METHOD_');
  if (v === undefined) return 'client_secret_basic';
  const auth = CLIENT_AUTH[v.toUpperCase()];
  if (!auth) throw invalid(`${path}.clientAuthMethod is not a client authentication method: ${v}`);
  return auth;
}

const text = (o: Obj, key: string, path: string) => str(o, key, path)?.trim() ?? '';

function secrets(o: Obj, path: string): SecretsInput {
  const key = obj(o, 'privateKey', path);
  return {
    clientSecret: str(o, 'clientSecret', path) || undefined,
    privateKey: key
      ? { pem: text(key, 'pem', `${path}.privateKey`), keyId: text(key, 'keyId', `${path}.privateKey`) }
      : undefined,
  };
}

const NAME_ID: Record<string, 'persistent' | 'emailAddress' | 'unspecified' | 'transient'> = {
  PERSISTENT: 'persistent',
  EMAIL_ADDRESS: 'emailAddress',
  UNSPECIFIED_FORMAT: 'unspecified',
  TRANSIENT: 'transient',
};

const TENANT_TYPES: Record<string, string> = {
  COMMON: 'common',
  ORGANIZATIONS: 'organizations',
  CONSUMERS: 'consumers',
};

/** The configuration field names of `idps` items and how each becomes a spec and its secrets. */
const KINDS: Record<string, (c: Obj, p: string) => { spec: ProviderSpec; secrets: SecretsInput }> = {
  genericOidc: (c, p) => ({
    spec: {
      kind: 'generic_oidc',
      issuer: text(c, 'issuer', p),
      clientId: text(c, 'clientId', p),
      clientAuth: clientAuth(c, p),
      scopes: strings(c, 'scopes', p),
      disablePkce: bool(c, 'disablePkce', p) ?? false,
      useUserinfo: bool(c, 'useUserinfo', p) ?? false,
      emailVerifiedByProvider: bool(c, 'emailVerifiedByProvider', p) ?? false,
      mapping: mapping(c, p),
    },
    secrets: secrets(c, p),
  }),
  genericOauth: (c, p) => ({
    spec: {
      kind: 'generic_oauth',
      authorizationEndpoint: text(c, 'authorizationEndpoint', p),
      tokenEndpoint: text(c, 'tokenEndpoint', p),
      userinfoEndpoint: text(c, 'userinfoEndpoint', p),
      clientId: text(c, 'clientId', p),
      clientAuth: clientAuth(c, p),
      scopes: strings(c, 'scopes', p),
      idAttribute: text(c, 'idAttribute', p),
      disablePkce: bool(c, 'disablePkce', p) ?? false,
      emailVerifiedByProvider: bool(c, 'emailVerifiedByProvider', p) ?? false,
      mapping: mapping(c, p),
    },
    secrets: secrets(c, p),
  }),
  google: (c, p) => template('google', c, p),
  github: (c, p) => template('github', c, p),
  gitlab: (c, p) => template('gitlab', c, p),
  githubEnterprise: (c, p) => ({
    spec: {
      kind: 'github_enterprise',
      clientId: text(c, 'clientId', p),
      authorizationEndpoint: text(c, 'authorizationEndpoint', p),
      tokenEndpoint: text(c, 'tokenEndpoint', p),
      userEndpoint: text(c, 'userEndpoint', p),
      scopes: strings(c, 'scopes', p),
    },
    secrets: secrets(c, p),
  }),
  gitlabSelfHosted: (c, p) => ({
    spec: {
      kind: 'gitlab_self_hosted',
      issuer: text(c, 'issuer', p),
      clientId: text(c, 'clientId', p),
      scopes: strings(c, 'scopes', p),
    },
    secrets: secrets(c, p),
  }),
  azureAd: (c, p) => {
    const type = enumValue(c, 'tenantType', p, 'AZURE_AD_TENANT_TYPE_')?.replace(/_UNSPECIFIED$/, '');
    if (type !== undefined && !TENANT_TYPES[type]) throw invalid(`${p}.tenantType is not a tenant type: ${type}`);
    return {
      spec: {
        kind: 'azure_ad',
        clientId: text(c, 'clientId', p),
        tenant: text(c, 'tenantId', p) || TENANT_TYPES[type ?? 'COMMON'],
        emailVerified: bool(c, 'emailVerified', p) ?? false,
        scopes: strings(c, 'scopes', p),
      },
      secrets: secrets(c, p),
    };
  },
  apple: (c, p) => ({
    spec: {
      kind: 'apple',
      clientId: text(c, 'clientId', p),
      teamId: text(c, 'teamId', p),
      keyId: text(c, 'keyId', p),
      scopes: strings(c, 'scopes', p),
    },
    secrets: { applePrivateKey: str(c, 'privateKey', p) || undefined },
  }),
  saml: (c, p) => {
    const format = enumValue(c, 'nameIdFormat', p, 'SAML_NAME_ID_FORMAT_')?.replace(
      /^PERSISTENT_UNSPECIFIED$/,
      'PERSISTENT',
    );
    if (format !== undefined && !NAME_ID[format]) throw invalid(`${p}.nameIdFormat is not a NameID format: ${format}`);
    const binding = enumValue(c, 'binding', p, 'SAML_BINDING_');
    return {
      spec: {
        kind: 'saml',
        metadataXml: str(c, 'metadataXml', p) ?? '',
        metadataUrl: str(c, 'metadataUrl', p) || undefined,
        binding: binding === 'POST' ? 'post' : 'redirect',
        signRequests: bool(c, 'withSignedRequest', p) ?? false,
        nameIdFormat: NAME_ID[format ?? 'PERSISTENT'],
        transientMappingAttributeName: str(c, 'transientMappingAttributeName', p) || undefined,
        allowUnsignedAssertions: bool(c, 'allowUnsignedAssertions', p) ?? false,
        mapping: mapping(c, p),
      },
      secrets: {},
    };
  },
  ldap: (c, p) => ({
    spec: {
      kind: 'ldap',
      servers: strings(c, 'servers', p),
      startTls: bool(c, 'startTls', p) ?? false,
      baseDn: text(c, 'baseDn', p),
      bindDn: text(c, 'bindDn', p),
      userObjectClasses: strings(c, 'userObjectClasses', p),
      userFilters: strings(c, 'userFilters', p),
      timeoutSeconds: int(c, 'timeoutSeconds', p, 60) || 10,
      rootCa: str(c, 'rootCa', p) || undefined,
      mapping: mapping(c, p),
    },
    secrets: { bindPassword: str(c, 'bindPassword', p) || undefined },
  }),
};

function template(kind: 'google' | 'github' | 'gitlab', c: Obj, p: string) {
  return { spec: { kind, clientId: text(c, 'clientId', p), scopes: strings(c, 'scopes', p) }, secrets: secrets(c, p) };
}

/** One `idps` item: `{idpId, name, options?, <one configuration>}`. */
export function toIdp(o: Obj, path: string): ImportIdp {
  return item(o, path, () => {
    const given = Object.keys(KINDS).filter((k) => o[k] !== undefined && o[k] !== null);
    if (given.length !== 1)
      throw invalid(`${path} needs exactly one configuration (${Object.keys(KINDS).join(', ')}); got ${given.length}`);
    const kind = given[0];
    const config = obj(o, kind, path)!;
    const { spec, secrets } = KINDS[kind](config, `${path}.${kind}`);
    return {
      name: str(o, 'name', path) ?? '',
      options: options(obj(o, 'options', path), `${path}.options`),
      spec,
      secrets,
    };
  });
}

/** v1 OIDC mapping fields: which ID token claim fills the display name or the username. */
const OIDC_FIELDS: Record<string, string> = { PREFERRED_USERNAME: 'preferred_username', EMAIL: 'email' };

/**
 * One v1 `oidcIdps` item, `{idpId, details: {name, clientId, clientSecret, issuer, scopes,
 * displayNameMapping, usernameMapping, autoRegister}}`: a generic OpenID Connect provider.
 */
export function toOidcIdp(o: Obj, path: string): ImportIdp {
  return item(o, path, () => {
    const d = obj(o, 'details', path) ?? {};
    const p = `${path}.details`;
    const field = (key: string) => {
      const v = enumValue(d, key, p, 'OIDC_MAPPING_FIELD_');
      return v === undefined ? undefined : OIDC_FIELDS[v];
    };
    const map: ClaimMapping = {};
    const displayName = field('displayNameMapping');
    const username = field('usernameMapping');
    if (displayName) map.displayName = displayName;
    if (username) map.username = username;
    const autoRegister = bool(d, 'autoRegister', p) ?? false;
    return {
      name: str(d, 'name', p) ?? '',
      options: { ...DEFAULT_OPTIONS, isAutoCreation: autoRegister },
      spec: {
        kind: 'generic_oidc',
        issuer: text(d, 'issuer', p),
        clientId: text(d, 'clientId', p),
        clientAuth: 'client_secret_basic',
        scopes: strings(d, 'scopes', p),
        disablePkce: false,
        useUserinfo: false,
        emailVerifiedByProvider: false,
        mapping: map,
      },
      secrets: { clientSecret: str(d, 'clientSecret', p) || undefined },
    };
  });
}

/** One `userLinks` item: `{userId, idpId, providedUserId, providedUserName}`. */
export function toUserLink(o: Obj, path: string): ImportUserLink {
  const need = (key: string) => {
    const v = id(o, key, path);
    if (!v) throw invalidArgument('Errors.Import.Invalid', `${path}.${key} is required`);
    return v;
  };
  return {
    userId: need('userId'),
    idpId: need('idpId'),
    externalUserId: need('providedUserId'),
    externalUsername: str(o, 'providedUserName', path) ?? '',
  };
}
