import { X509Certificate } from 'node:crypto';
import { invalidArgument } from '../../errors';
import { type ClaimMapping, MAPPED_FIELDS } from '../external-user';
import { parseIdpMetadata } from './idp-metadata';
import { selfSignedRsaCertificate } from './self-signed-cert';

export type SamlNameIdFormat = 'unspecified' | 'emailAddress' | 'persistent' | 'transient';

export interface SamlProviderConfig {
  /** the IdP's metadata: entityID, SSO endpoints per binding, signing certificates */
  metadataXml: string;
  /** where metadataXml was fetched from, if it was */
  metadataUrl?: string;
  /**
   * how the AuthnRequest travels (HTTP-Redirect or HTTP-POST); the response always comes by
   * HTTP-POST. Default redirect
   */
  binding: 'redirect' | 'post';
  /** sign AuthnRequests with the SP key. Default false */
  signRequests: boolean;
  /** the NameID format requested from the IdP. Default unspecified */
  nameIdFormat: SamlNameIdFormat;
  /** with transient NameIDs: the attribute that holds a stable user id (required then) */
  transientMappingAttributeName?: string;
  /** default true: an unsigned assertion is refused even in a signed response */
  wantAssertionsSigned: boolean;
  /** ExternalUser field -> SAML attribute name; unset fields use DEFAULT_SAML_ATTRIBUTES */
  mapping: ClaimMapping;
}

/** The SP's signing and decryption key pair. */
export interface SamlSpKeys {
  certificatePem: string;
  privateKeyPem: string;
}

/** The SP entity id (its metadata URL) and assertion consumer service URL. */
export interface SamlEndpoints {
  entityId: string;
  acsUrl: string;
}

export const NAME_ID_FORMAT_URNS: Record<SamlNameIdFormat, string> = {
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
};

type MappedField = keyof ClaimMapping;

/**
 * The attribute names IdPs commonly use for each field, tried in order when the provider's mapping
 * does not name one: plain names (Keycloak, Okta, Google), the X.500/eduPerson OIDs (Shibboleth,
 * SimpleSAMLphp) and the WS-Federation claim URIs (Entra ID, AD FS).
 */
export const DEFAULT_SAML_ATTRIBUTES: Partial<Record<MappedField, string[]>> = {
  username: ['uid', 'username', 'urn:oid:0.9.2342.19200300.100.1.1'],
  email: [
    'email',
    'mail',
    'emailAddress',
    'urn:oid:0.9.2342.19200300.100.1.3',
    'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  ],
  givenName: [
    'givenName',
    'firstName',
    'urn:oid:2.5.4.42',
    'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname',
  ],
  familyName: [
    'surname',
    'sn',
    'lastName',
    'urn:oid:2.5.4.4',
    'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname',
  ],
  displayName: [
    'displayName',
    'urn:oid:2.16.840.1.113730.3.1.241',
    'http://schemas.microsoft.com/identity/claims/displayname',
  ],
  phone: [
    'telephoneNumber',
    'mobile',
    'urn:oid:2.5.4.20',
    'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/mobilephone',
  ],
  preferredLanguage: ['preferredLanguage', 'urn:oid:2.16.840.1.113730.3.1.39'],
};

const KEY = 'Errors.IdP.Saml.InvalidConfig';

/** Validates a provider configuration from the API and fills its defaults; errors name the API's snake_case fields. */
export function checkSamlConfig(c: unknown): SamlProviderConfig {
  if (!c || typeof c !== 'object') throw invalidArgument(KEY, 'saml configuration is required');
  const raw = c as Record<string, unknown>;
  const metadataXml = raw.metadataXml;
  if (typeof metadataXml !== 'string' || metadataXml.trim() === '') {
    throw invalidArgument(KEY, 'metadata_xml is required');
  }
  const binding = raw.binding ?? 'redirect';
  if (binding !== 'redirect' && binding !== 'post') throw invalidArgument(KEY, 'binding must be redirect or post');
  const nameIdFormat = raw.nameIdFormat ?? 'unspecified';
  if (typeof nameIdFormat !== 'string' || !Object.hasOwn(NAME_ID_FORMAT_URNS, nameIdFormat)) {
    throw invalidArgument(KEY, `name_id_format must be one of ${Object.keys(NAME_ID_FORMAT_URNS).join(', ')}`);
  }
  const signRequests = optionalBoolean(raw.signRequests, 'sign_requests', false);
  const wantAssertionsSigned = optionalBoolean(raw.wantAssertionsSigned, 'want_assertions_signed', true);
  const transient = optionalText(raw.transientMappingAttributeName, 'transient_mapping_attribute_name');
  if (nameIdFormat === 'transient' && !transient) {
    throw invalidArgument(KEY, 'transient_mapping_attribute_name is required when name_id_format is transient');
  }
  const metadataUrl = optionalText(raw.metadataUrl, 'metadata_url');
  if (metadataUrl && !/^https?:\/\//i.test(metadataUrl)) {
    throw invalidArgument(KEY, 'metadata_url must be an http or https URL');
  }
  const idp = parseIdpMetadata(metadataXml);
  if (!idp.ssoUrls[binding]) {
    throw invalidArgument(KEY, `metadata_xml has no SingleSignOnService for the ${binding} binding`);
  }
  if (idp.signingCerts.length === 0) throw invalidArgument(KEY, 'metadata_xml has no signing certificate');
  for (const pem of idp.signingCerts) {
    try {
      new X509Certificate(pem);
    } catch {
      throw invalidArgument(KEY, 'metadata_xml holds a signing certificate that cannot be read');
    }
  }
  return {
    metadataXml,
    ...(metadataUrl ? { metadataUrl } : {}),
    binding,
    signRequests,
    nameIdFormat: nameIdFormat as SamlNameIdFormat,
    ...(transient ? { transientMappingAttributeName: transient } : {}),
    wantAssertionsSigned,
    mapping: checkMapping(raw.mapping),
  };
}

/** A self-signed RSA 2048 certificate valid 10 years, named after the provider. */
export function generateSpKeys(name: string): SamlSpKeys {
  return selfSignedRsaCertificate(name.trim() || 'Portcullis SAML SP', 10);
}

function checkMapping(value: unknown): ClaimMapping {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(KEY, 'mapping must be an object');
  const mapping: ClaimMapping = {};
  for (const [field, attribute] of Object.entries(value)) {
    if (!(MAPPED_FIELDS as readonly string[]).includes(field))
      throw invalidArgument(KEY, `mapping.${field} is not a mappable field`);
    if (attribute === undefined || attribute === '') continue;
    if (typeof attribute !== 'string') throw invalidArgument(KEY, `mapping.${field} must be an attribute name`);
    mapping[field as MappedField] = attribute;
  }
  return mapping;
}

function optionalBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw invalidArgument(KEY, `${field} must be true or false`);
  return value;
}

function optionalText(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidArgument(KEY, `${field} must be a string`);
  return value;
}
