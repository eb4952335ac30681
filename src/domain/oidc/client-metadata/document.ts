import { complianceProblems } from '../../application/compliance';
import { OIDC_DEFAULTS, type OidcAppConfig } from '../../application/model';
import { parseUrl } from '../../validate/url';
import { MetadataProblem } from './problem';

const MAX_REDIRECT_URIS = 20;
const MAX_URI_LENGTH = 2048;
const MAX_NAME_LENGTH = 200;

/** What a metadata document decides about its client; the rest comes from the instance's project. */
export interface DocumentClient {
  name: string;
  oidc: OidcAppConfig;
}

/**
 * Reads a client ID metadata document (its fields are RFC 7591 client metadata). `client_id` must be
 * the URL exactly. The client is public: `token_endpoint_auth_method` absent or `none` (PKCE is then
 * required at authorize); secrets are refused as the draft says, and `private_key_jwt` is refused as
 * not supported here. `redirect_uris` are required and must pass the same compliance rules as a
 * registered application's (https, or loopback http; custom schemes only for `application_type`
 * native). `grant_types` must include authorization_code; refresh_token is honoured, other grant
 * types are ignored. `response_types` must include code. `client_name` is shown at login. `scope` and
 * every other field are ignored.
 */
export function readDocument(url: string, json: unknown): DocumentClient {
  const fail = (why: string) => new MetadataProblem(`the client metadata document ${why}`);
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw fail('is not a JSON object');
  const d = json as Record<string, unknown>;
  if (d.client_id !== url) throw fail('must have client_id equal to the URL it was fetched from');
  if (d.client_secret !== undefined || d.client_secret_expires_at !== undefined)
    throw fail('must not contain client_secret: a client identified by a URL has no shared secret');
  const method = d.token_endpoint_auth_method ?? 'none';
  if (method === 'private_key_jwt')
    throw fail('asks for private_key_jwt, which is not supported for metadata documents here: use none with PKCE');
  if (method !== 'none') throw fail(`asks for token_endpoint_auth_method "${String(method)}": only none is supported`);

  const redirectUris = d.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0) throw fail('must list redirect_uris');
  if (redirectUris.length > MAX_REDIRECT_URIS) throw fail(`lists more than ${MAX_REDIRECT_URIS} redirect_uris`);
  for (const u of redirectUris) {
    if (typeof u !== 'string' || u.length > MAX_URI_LENGTH || !parseUrl(u))
      throw fail('has a redirect_uri that is not an absolute URI');
  }
  const grantTypes = stringList(d.grant_types, ['authorization_code'], fail, 'grant_types');
  if (!grantTypes.includes('authorization_code')) throw fail('must allow the grant type authorization_code');
  const responseTypes = stringList(d.response_types, ['code'], fail, 'response_types');
  if (!responseTypes.includes('code')) throw fail('must allow the response type code');
  const applicationType = d.application_type ?? 'web';
  if (applicationType !== 'web' && applicationType !== 'native')
    throw fail('has an application_type other than web or native');

  const oidc: OidcAppConfig = {
    ...OIDC_DEFAULTS,
    redirectUris: redirectUris as string[],
    responseTypes: ['CODE'],
    grantTypes: grantTypes.includes('refresh_token') ? ['AUTHORIZATION_CODE', 'REFRESH_TOKEN'] : ['AUTHORIZATION_CODE'],
    applicationType: applicationType === 'native' ? 'NATIVE' : 'WEB',
    authMethodType: 'NONE',
  };
  const problem = complianceProblems(oidc)[0];
  if (problem) throw fail(`is not acceptable: ${problem.message}`);
  const name =
    typeof d.client_name === 'string' && d.client_name.trim()
      ? d.client_name.trim().slice(0, MAX_NAME_LENGTH)
      : new URL(url).host;
  return { name, oidc };
}

function stringList(v: unknown, fallback: string[], fail: (why: string) => Error, field: string): string[] {
  if (v === undefined) return fallback;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
    throw fail(`has ${field} that is not a list of strings`);
  return v as string[];
}
