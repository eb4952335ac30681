import { invalidArgument } from '../errors';
import { isLoopback } from './compliance';
import { isResourceId, requireRefId } from '../validate/id';
import { httpUrl, parseUrl } from '../validate/url';
import { logoutUriProblem } from './logout-uris';
import { fapi2ConfigProblems } from './security-profile';
import {
  ACCESS_TOKEN_TYPES,
  API_AUTH_METHODS,
  type ApiAppConfig,
  GRANT_TYPES,
  OIDC_APP_TYPES,
  OIDC_AUTH_METHODS,
  type OidcAppConfig,
  RESPONSE_TYPES,
  type SamlAppConfig,
  SECURITY_PROFILES,
} from './model';

// Field names in messages are the .proto names, so a caller can find the field in the request.

const MAX_URIS = 100;
const MAX_URI_LENGTH = 2048;
const MAX_NAME = 200;
const MAX_METADATA_XML = 1024 * 1024;
const MAX_CLOCK_SKEW_SECONDS = 5;

export function checkName(name: string, field = 'name'): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalidArgument('Errors.Application.Name.Missing', `${field} is required`);
  if (trimmed.length > MAX_NAME)
    throw invalidArgument('Errors.Application.Name.TooLong', `${field} must be at most ${MAX_NAME} characters`);
  return trimmed;
}

export function checkApplicationId(id: string): void {
  if (!isResourceId(id)) {
    throw invalidArgument(
      'Errors.Application.Id.Invalid',
      'application_id may contain only letters, digits, "-" and "_" (at most 200)',
    );
  }
}

export function checkRequiredId(value: string, field: string): void {
  requireRefId((_, problem) => (problem === 'missing' ? 'Errors.IdMissing' : 'Errors.IdInvalid'), field, value);
}

export function checkOidcConfig(c: OidcAppConfig): void {
  checkUris(c.redirectUris, 'oidc.redirect_uris');
  checkUris(c.postLogoutRedirectUris, 'oidc.post_logout_redirect_uris');
  checkEnumList(c.responseTypes, RESPONSE_TYPES, 'oidc.response_types');
  checkEnumList(c.grantTypes, GRANT_TYPES, 'oidc.grant_types');
  checkEnum(c.applicationType, OIDC_APP_TYPES, 'oidc.application_type');
  checkEnum(c.authMethodType, OIDC_AUTH_METHODS, 'oidc.auth_method_type');
  checkEnum(c.accessTokenType, ACCESS_TOKEN_TYPES, 'oidc.access_token_type');
  checkEnum(c.securityProfile ?? 'NONE', SECURITY_PROFILES, 'oidc.security_profile');
  if (!Number.isFinite(c.clockSkewSeconds) || c.clockSkewSeconds < 0 || c.clockSkewSeconds > MAX_CLOCK_SKEW_SECONDS) {
    throw invalidArgument(
      'Errors.Application.ClockSkew.Invalid',
      `oidc.clock_skew must be between 0 and ${MAX_CLOCK_SKEW_SECONDS} seconds`,
    );
  }
  if (c.additionalOrigins.length > MAX_URIS) {
    throw invalidArgument(
      'Errors.Application.Origins.TooMany',
      `oidc.additional_origins may hold at most ${MAX_URIS} entries`,
    );
  }
  c.additionalOrigins.forEach((o, i) => {
    checkOrigin(o, `oidc.additional_origins[${i}]`);
  });
  checkLogoutUri(c, c.backchannelLogoutUri, 'oidc.backchannel_logout_uri');
  checkLogoutUri(c, c.frontchannelLogoutUri, 'oidc.frontchannel_logout_uri');
  const unmet = fapi2ConfigProblems(c);
  if (unmet.length > 0) {
    throw invalidArgument(
      'Errors.Application.SecurityProfile.Unmet',
      `oidc.security_profile FAPI_2_0 needs ${unmet.join('; ')}`,
    );
  }
}

function checkLogoutUri(c: OidcAppConfig, uri: string | undefined, field: string): void {
  if (!uri) return;
  const problem = logoutUriProblem(c, uri);
  if (problem) throw invalidArgument('Errors.Application.LogoutUri.Invalid', `${field} ${problem}: "${truncate(uri)}"`);
}

export function checkApiConfig(c: ApiAppConfig): void {
  checkEnum(c.authMethodType, API_AUTH_METHODS, 'api.auth_method_type');
  if (c.resourceUri) checkResourceUri(c.resourceUri);
}

/**
 * An API's resource URI (RFC 8707 §2): absolute, no fragment, https — or http on a loopback host for
 * development. The project URN form is reserved for projects.
 */
function checkResourceUri(uri: string): void {
  const url = parseUrl(uri);
  const fail = (why: string) =>
    invalidArgument('Errors.Application.ResourceUri.Invalid', `api.resource_uri ${why}: "${truncate(uri)}"`);
  if (uri.length > MAX_URI_LENGTH) throw fail(`must be at most ${MAX_URI_LENGTH} characters`);
  if (!url || /\s/.test(uri) || !url.hostname) throw fail('must be an absolute https URI');
  if (uri.includes('#')) throw fail('must not contain a fragment');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url)))
    throw fail('must use https (http only on a loopback host)');
}

export function checkSamlAppConfig(c: SamlAppConfig): void {
  if (c.metadataXml !== undefined) {
    const xml = c.metadataXml.trim();
    if (!xml) throw invalidArgument('Errors.Application.Saml.Metadata.Missing', 'saml.metadata_xml must not be empty');
    if (xml.length > MAX_METADATA_XML)
      throw invalidArgument('Errors.Application.Saml.Metadata.TooLarge', 'saml.metadata_xml must be at most 1 MiB');
    if (
      !xml.startsWith('<') ||
      !/<(\w+:)?EntityDescriptor[\s>]/.test(xml) ||
      !/entityID\s*=\s*["'][^"']+["']/.test(xml)
    ) {
      throw invalidArgument(
        'Errors.Application.Saml.Metadata.Invalid',
        'saml.metadata_xml must be a SAML metadata document: an EntityDescriptor with an entityID',
      );
    }
    return;
  }
  if (c.metadataUrl !== undefined) {
    if (!httpUrl(c.metadataUrl)) {
      throw invalidArgument(
        'Errors.Application.Saml.MetadataUrl.Invalid',
        'saml.metadata_url must be an http or https URL',
      );
    }
    return;
  }
  throw invalidArgument('Errors.Application.Saml.Metadata.Missing', 'saml needs metadata_xml or metadata_url');
}

function checkUris(uris: string[], field: string): void {
  if (uris.length > MAX_URIS)
    throw invalidArgument('Errors.Application.Uris.TooMany', `${field} may hold at most ${MAX_URIS} entries`);
  uris.forEach((u, i) => {
    const name = `${field}[${i}]`;
    if (u.length > MAX_URI_LENGTH)
      throw invalidArgument('Errors.Application.Uri.TooLong', `${name} must be at most ${MAX_URI_LENGTH} characters`);
    const url = parseUrl(u);
    // An absolute URI needs a scheme; http(s) URIs also need a host. Custom schemes
    // (com.example.app:/callback) are allowed here and judged by the compliance rules.
    if (!url || /\s/.test(u) || ((url.protocol === 'http:' || url.protocol === 'https:') && !url.hostname)) {
      throw invalidArgument('Errors.Application.Uri.Invalid', `${name} is not an absolute URI: "${truncate(u)}"`);
    }
  });
  const seen = new Set<string>();
  for (const u of uris) {
    if (seen.has(u)) throw invalidArgument('Errors.Application.Uri.Duplicate', `${field} lists "${truncate(u)}" twice`);
    seen.add(u);
  }
}

function checkOrigin(origin: string, field: string): void {
  const url = parseUrl(origin);
  if (!url || url.origin === 'null' || url.origin !== origin.replace(/\/$/, '')) {
    throw invalidArgument(
      'Errors.Application.Origin.Invalid',
      `${field} must be an origin like https://app.example.com: "${truncate(origin)}"`,
    );
  }
}

function checkEnum(value: string, allowed: readonly string[], field: string): void {
  if (!allowed.includes(value))
    throw invalidArgument('Errors.Application.Enum.Invalid', `${field} must be one of ${allowed.join(', ')}`);
}

function checkEnumList(values: string[], allowed: readonly string[], field: string): void {
  values.forEach((v, i) => {
    checkEnum(v, allowed, `${field}[${i}]`);
  });
  if (new Set(values).size !== values.length)
    throw invalidArgument('Errors.Application.Enum.Duplicate', `${field} lists a value twice`);
}

function truncate(s: string): string {
  return s.length > 100 ? `${s.slice(0, 100)}…` : s;
}
