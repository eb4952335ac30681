import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { invalidClientMetadata, invalidRedirectUri } from '../../oidc/oauth-errors';
import type { OidcAppConfig } from '../model';
import { APPLICATION_TYPE_NAMES, AUTH_METHOD_NAMES, GRANT_TYPE_NAMES, RESPONSE_TYPE_NAMES } from './names';

/** What a registration request asks for, in the applications' terms. */
export interface RequestedClient {
  name: string;
  /** every field the metadata controls, so that an RFC 7592 update replaces them all */
  oidc: Pick<
    OidcAppConfig,
    | 'redirectUris'
    | 'postLogoutRedirectUris'
    | 'grantTypes'
    | 'responseTypes'
    | 'applicationType'
    | 'authMethodType'
    | 'dpopBoundAccessTokens'
  >;
  /** public keys of a private_key_jwt client (`jwks`), as SPKI PEM with the key id the client signs with */
  keys: { kid?: string; publicKey: string }[];
}

const DEFAULT_NAME = 'Self-registered client';
const MAX_NAME = 200;
const MAX_KEYS = 10;

type Json = Record<string, unknown>;

/**
 * Reads RFC 7591 §2 client metadata. Defaults are the RFC's (grant type authorization_code, response
 * type code, client_secret_basic, OIDC application_type web). Grant types outside the instance's
 * allowed list, unknown values and wrong JSON types are invalid_client_metadata; metadata the server
 * does not implement (scope, logo_uri, …) is ignored and not echoed back, as §3.2.1 allows.
 */
export function readClientMetadata(body: unknown, allowedGrantTypes: string[]): RequestedClient {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidClientMetadata('the request body must be a JSON object of client metadata');
  const m = body as Json;
  const grantTypes = names(m, 'grant_types', ['authorization_code'], GRANT_TYPE_NAMES);
  for (const g of strings(m, 'grant_types') ?? ['authorization_code']) {
    if (!allowedGrantTypes.includes(g))
      throw invalidClientMetadata(
        `grant type "${g}" may not be registered here; allowed: ${allowedGrantTypes.join(', ')}`,
      );
  }
  const [applicationType] = names(m, 'application_type', ['web'], APPLICATION_TYPE_NAMES, true);
  const [authMethodType] = names(m, 'token_endpoint_auth_method', ['client_secret_basic'], AUTH_METHOD_NAMES, true);
  if (m.jwks_uri !== undefined) throw invalidClientMetadata('jwks_uri is not supported: send the keys inline as jwks');
  const keys = authMethodType === 'PRIVATE_KEY_JWT' ? readKeys(m.jwks) : [];
  return {
    name: clientName(m.client_name),
    oidc: {
      redirectUris: uris(m, 'redirect_uris'),
      postLogoutRedirectUris: uris(m, 'post_logout_redirect_uris'),
      grantTypes,
      responseTypes: names(m, 'response_types', ['code'], RESPONSE_TYPE_NAMES),
      applicationType,
      authMethodType,
      dpopBoundAccessTokens: bool(m, 'dpop_bound_access_tokens'),
    },
    keys,
  };
}

/** A boolean metadata value (RFC 9449 §5.2 `dpop_bound_access_tokens`); absent means false. */
function bool(m: Json, field: string): boolean {
  const v = m[field];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw invalidClientMetadata(`${field} must be a boolean`);
  return v;
}

function strings(m: Json, field: string): string[] | undefined {
  const v = m[field];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
    throw invalidClientMetadata(`${field} must be an array of strings`);
  return v as string[];
}

/** A list (or, with `single`, one string) of RFC 7591 names, mapped to the stored names. */
function names(m: Json, field: string, fallback: string[], table: Record<string, string>, single = false): string[] {
  let given: string[] | undefined;
  if (single) {
    const v = m[field];
    if (v !== undefined && v !== null && typeof v !== 'string')
      throw invalidClientMetadata(`${field} must be a string`);
    given = v ? [v as string] : undefined;
  } else {
    given = strings(m, field);
  }
  const list = given && given.length > 0 ? given : fallback;
  return list.map((n) => {
    if (!Object.hasOwn(table, n))
      throw invalidClientMetadata(`${field}: "${n}" is not supported; use ${Object.keys(table).join(', ')}`);
    return table[n];
  });
}

function uris(m: Json, field: string): string[] {
  try {
    return strings(m, field) ?? [];
  } catch {
    throw invalidRedirectUri(`${field} must be an array of strings`);
  }
}

function clientName(v: unknown): string {
  if (v === undefined || v === null) return DEFAULT_NAME;
  if (typeof v !== 'string') throw invalidClientMetadata('client_name must be a string');
  const name = v.trim();
  if (name.length > MAX_NAME) throw invalidClientMetadata(`client_name must be at most ${MAX_NAME} characters`);
  return name || DEFAULT_NAME;
}

/** RFC 7591 `jwks`: a JWK Set of public keys; a private key or an unreadable one is refused. */
function readKeys(jwks: unknown): RequestedClient['keys'] {
  const keys = (jwks as { keys?: unknown } | undefined)?.keys;
  if (!Array.isArray(keys) || keys.length === 0)
    throw invalidClientMetadata('private_key_jwt needs jwks with at least one public key');
  if (keys.length > MAX_KEYS) throw invalidClientMetadata(`jwks may hold at most ${MAX_KEYS} keys`);
  return keys.map((k, i) => {
    if (typeof k !== 'object' || k === null) throw invalidClientMetadata(`jwks.keys[${i}] must be a JWK`);
    const jwk = k as JsonWebKey & { kid?: unknown };
    if (jwk.d !== undefined) throw invalidClientMetadata(`jwks.keys[${i}] is a private key: send only public keys`);
    if (jwk.kid !== undefined && (typeof jwk.kid !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(jwk.kid)))
      throw invalidClientMetadata(`jwks.keys[${i}].kid must be 1–200 printable characters`);
    try {
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      if (!['rsa', 'ec', 'ed25519'].includes(key.asymmetricKeyType ?? '')) throw new Error('unsupported key type');
      return { kid: jwk.kid as string | undefined, publicKey: key.export({ type: 'spki', format: 'pem' }).toString() };
    } catch {
      throw invalidClientMetadata(`jwks.keys[${i}] is not a usable RSA, EC or Ed25519 public key`);
    }
  });
}
