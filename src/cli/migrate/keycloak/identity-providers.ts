import { sha256Hex } from './sha256';

/**
 * Keycloak's identity providers (the realm's `identityProviders`) as `idps` items of the import body
 * (src/v1/import/idps.ts reads them). Only what Portcullis can run the same way is converted; every
 * other provider is reported with the reason, and its users' links with it.
 */

/** One `idps` item: `{idpId, name, options, <configuration field>: {...}}`. */
export interface ImportIdpItem {
  idpId: string;
  name: string;
  options: {
    isLinkingAllowed: boolean;
    isCreationAllowed: boolean;
    isAutoCreation: boolean;
    isAutoUpdate: boolean;
    autoLinking: 'NONE';
    storeTokens: boolean;
  };
  [config: string]: unknown;
}

/** One `userLinks` item. */
export interface ImportUserLinkItem {
  userId: string;
  idpId: string;
  providedUserId: string;
  providedUserName: string;
}

export type IdpResult =
  | { kind: 'converted'; alias: string; item: ImportIdpItem; warnings: string[] }
  | { kind: 'skipped'; alias: string; reason: string };

/** What the admin console's partial export writes instead of a secret. */
const MASKED_SECRET = '**********';

const SAFE_ID = /^[A-Za-z0-9_.@-]+$/;

/**
 * The provider's id in Portcullis, from the organization and the alias: stable, so links and re-runs
 * find it, and distinct per organization because provider ids are unique in the instance and realms
 * tend to share aliases such as `google`. An alias with characters ids cannot hold gets a hash of
 * itself so that two such aliases never meet.
 */
export function idpIdOf(alias: string, orgId: string, idPrefix = ''): string {
  const safe = alias.replace(/[^A-Za-z0-9_.@-]/g, '_');
  const tail = SAFE_ID.test(alias) ? alias : `${safe}-${sha256Hex(alias).slice(0, 8)}`;
  return `${idPrefix}${orgId}-idp-${tail}`;
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
const yes = (v: unknown) => v === true || v === 'true';
const scopes = (v: unknown) => text(v).split(/\s+/).filter(Boolean);

/** A secret the export really holds; masked secrets and vault references are not. */
function secretOf(config: Record<string, unknown>, key: string, warnings: string[]): string | undefined {
  const v = text(config[key]);
  if (!v) return undefined;
  if (v === MASKED_SECRET) {
    warnings.push(`${key} masked in the export: add it to the body (or use --idp-secrets) before importing`);
    return undefined;
  }
  if (v.startsWith('${vault.')) {
    warnings.push(`${key} is a Keycloak vault reference: add it to the body (or use --idp-secrets) before importing`);
    return undefined;
  }
  return v;
}

const CLIENT_AUTH: Record<string, string> = {
  client_secret_post: 'CLIENT_AUTH_METHOD_POST',
  client_secret_basic: 'CLIENT_AUTH_METHOD_UNSPECIFIED',
};

const NAME_ID_FORMATS: Record<string, string> = {
  'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent': 'SAML_NAME_ID_FORMAT_PERSISTENT_UNSPECIFIED',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress': 'SAML_NAME_ID_FORMAT_EMAIL_ADDRESS',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified': 'SAML_NAME_ID_FORMAT_UNSPECIFIED_FORMAT',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:transient': 'SAML_NAME_ID_FORMAT_TRANSIENT',
};

const xml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** The IdP's metadata, written from the fields Keycloak keeps instead of the document it read. */
function samlMetadata(entityId: string, ssoUrl: string, certificates: string[], nameIdFormat: string): string {
  const keys = certificates
    .map(
      (c) =>
        '<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data>' +
        `<ds:X509Certificate>${xml(c)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join('');
  const bindings = ['HTTP-Redirect', 'HTTP-POST']
    .map(
      (b) => `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:${b}" Location="${xml(ssoUrl)}"/>`,
    )
    .join('');
  return (
    '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" ' +
    `xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${xml(entityId)}">` +
    '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">' +
    `${keys}${nameIdFormat ? `<md:NameIDFormat>${xml(nameIdFormat)}</md:NameIDFormat>` : ''}${bindings}` +
    '</md:IDPSSODescriptor></md:EntityDescriptor>'
  );
}

type Converted = { field: string; config: Record<string, unknown> } | { skip: string };

function oidc(c: Record<string, unknown>, trustEmail: boolean, warnings: string[]): Converted {
  const method = text(c.clientAuthMethod) || 'client_secret_post';
  if (!CLIENT_AUTH[method])
    return { skip: `client authentication ${method} (Portcullis takes client_secret_post or client_secret_basic)` };
  const base = {
    clientId: text(c.clientId),
    clientSecret: secretOf(c, 'clientSecret', warnings),
    clientAuthMethod: CLIENT_AUTH[method],
    scopes: scopes(c.defaultScope),
  };
  const issuer = text(c.issuer);
  if (issuer) {
    const useUserinfo = Boolean(text(c.userInfoUrl)) && !yes(c.disableUserInfo);
    return {
      field: 'genericOidc',
      config: { ...base, issuer, useUserinfo, emailVerifiedByProvider: trustEmail },
    };
  }
  if (!text(c.userInfoUrl)) return { skip: 'neither an issuer nor a userinfo URL' };
  warnings.push('no issuer in Keycloak: converted to OAuth 2.0 with the userinfo endpoint (sub is the user id)');
  return {
    field: 'genericOauth',
    config: {
      ...base,
      authorizationEndpoint: text(c.authorizationUrl),
      tokenEndpoint: text(c.tokenUrl),
      userinfoEndpoint: text(c.userInfoUrl),
      idAttribute: 'sub',
      emailVerifiedByProvider: trustEmail,
    },
  };
}

function saml(c: Record<string, unknown>): Converted {
  const entityId = text(c.idpEntityId);
  const ssoUrl = text(c.singleSignOnServiceUrl);
  const certificates = text(c.signingCertificate)
    .split(',')
    .map((s) => s.replace(/\s+/g, ''))
    .filter(Boolean);
  const format = text(c.nameIDPolicyFormat);
  const metadataUrl = text(c.metadataDescriptorUrl);
  const byAttribute = ['ATTRIBUTE', 'FRIENDLY_ATTRIBUTE'].includes(text(c.principalType));
  const attribute = byAttribute ? text(c.principalAttribute) : '';
  const signed = yes(c.validateSignature) && certificates.length > 0;
  let metadata: Record<string, string>;
  if (entityId && ssoUrl && signed) metadata = { metadataXml: samlMetadata(entityId, ssoUrl, certificates, format) };
  else if (metadataUrl) metadata = { metadataUrl };
  else if (!signed) return { skip: 'SAML without signature validation (Portcullis requires signed responses)' };
  else return { skip: 'SAML without idpEntityId and singleSignOnServiceUrl or a metadata URL' };
  const nameIdFormat = NAME_ID_FORMATS[format] ?? 'SAML_NAME_ID_FORMAT_PERSISTENT_UNSPECIFIED';
  if (nameIdFormat === 'SAML_NAME_ID_FORMAT_TRANSIENT' && !attribute)
    return { skip: 'transient NameIDs without a principal attribute (no stable user id to link by)' };
  return {
    field: 'saml',
    config: {
      ...metadata,
      binding: yes(c.postBindingAuthnRequest) ? 'SAML_BINDING_POST' : 'SAML_BINDING_REDIRECT_UNSPECIFIED',
      withSignedRequest: yes(c.wantAuthnRequestsSigned),
      nameIdFormat,
      ...(attribute && nameIdFormat === 'SAML_NAME_ID_FORMAT_TRANSIENT'
        ? { transientMappingAttributeName: attribute }
        : {}),
      // Keycloak checked the response's signature and, unless told to, not the assertion's own.
      allowUnsignedAssertions: !yes(c.wantAssertionsSigned),
      mapping: attribute ? { id: attribute } : {},
    },
  };
}

/** The conversion of each Keycloak providerId that Portcullis has a counterpart for. */
function configOf(providerId: string, c: Record<string, unknown>, trustEmail: boolean, warnings: string[]): Converted {
  const social = () => ({
    clientId: text(c.clientId),
    clientSecret: secretOf(c, 'clientSecret', warnings),
    scopes: scopes(c.defaultScope),
  });
  switch (providerId) {
    case 'oidc':
    case 'keycloak-oidc':
      return oidc(c, trustEmail, warnings);
    case 'google':
      return { field: 'google', config: social() };
    case 'gitlab':
      return { field: 'gitlab', config: social() };
    case 'github': {
      const base = text(c.baseUrl).replace(/\/+$/, '');
      const api = text(c.apiUrl).replace(/\/+$/, '');
      if (!base || base === 'https://github.com') return { field: 'github', config: social() };
      return {
        field: 'githubEnterprise',
        config: {
          ...social(),
          authorizationEndpoint: `${base}/login/oauth/authorize`,
          tokenEndpoint: `${base}/login/oauth/access_token`,
          userEndpoint: `${api || `${base}/api/v3`}/user`,
        },
      };
    }
    case 'microsoft': {
      const tenant = text(c.tenantId);
      warnings.push('Microsoft: Keycloak linked users by their Microsoft Graph id; check that sign-ins find them');
      return { field: 'azureAd', config: { ...social(), ...(tenant ? { tenantId: tenant } : {}) } };
    }
    case 'apple':
      return {
        field: 'apple',
        config: {
          clientId: text(c.clientId),
          teamId: text(c.teamId),
          keyId: text(c.keyId),
          privateKey: secretOf(c, 'p8Content', warnings),
          scopes: scopes(c.defaultScope),
        },
      };
    case 'saml':
      return saml(c);
    default:
      return { skip: `provider type ${providerId || '(none)'} is not supported` };
  }
}

/** Maps one entry of the realm's `identityProviders`, or says why it is not converted. */
export function mapIdentityProvider(raw: unknown, orgId: string, idPrefix = ''): IdpResult {
  const p = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const alias = text(p.alias);
  if (!alias) return { kind: 'skipped', alias: '(no alias)', reason: 'identity provider without alias' };
  if (p.enabled === false) return { kind: 'skipped', alias, reason: 'disabled in Keycloak' };
  const c = (p.config && typeof p.config === 'object' ? p.config : {}) as Record<string, unknown>;
  const warnings: string[] = [];
  const converted = configOf(text(p.providerId), c, p.trustEmail === true, warnings);
  if ('skip' in converted) return { kind: 'skipped', alias, reason: converted.skip };
  const linkOnly = p.linkOnly === true;
  const item: ImportIdpItem = {
    idpId: idpIdOf(alias, orgId, idPrefix),
    name: text(p.displayName) || alias,
    options: {
      isLinkingAllowed: true,
      // link-only providers sign in accounts that exist; Keycloak's first login creates the others
      isCreationAllowed: !linkOnly,
      isAutoCreation: !linkOnly,
      isAutoUpdate: text(c.syncMode) === 'FORCE',
      autoLinking: 'NONE',
      storeTokens: p.storeToken === true,
    },
    [converted.field]: converted.config,
  };
  return { kind: 'converted', alias, item, warnings };
}

/** Puts a secret given on the side (--idp-secrets) into a converted provider's configuration. */
export function withSecret(item: ImportIdpItem, secret: string): ImportIdpItem {
  for (const [field, config] of Object.entries(item)) {
    if (field === 'idpId' || field === 'name' || field === 'options' || !config || typeof config !== 'object') continue;
    const key = field === 'apple' ? 'privateKey' : 'clientSecret';
    return { ...item, [field]: { ...(config as object), [key]: secret } };
  }
  return item;
}
