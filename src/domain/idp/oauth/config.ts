import { createPrivateKey } from 'node:crypto';
import { invalidArgument } from '../../errors';
import { type ClaimMapping, MAPPED_FIELDS } from '../external-user';

export type OAuthTemplate =
  | 'google'
  | 'github'
  | 'github_enterprise'
  | 'gitlab'
  | 'gitlab_self_hosted'
  | 'azure_ad'
  | 'apple';

export type OAuthClientAuth = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

/** How Portcullis signs users in through one OpenID Connect or plain OAuth 2.0 upstream. */
export interface OAuthProviderConfig {
  /** oidc: discovery + ID token (+ optional userinfo); oauth: configured endpoints + userinfo JSON */
  protocol: 'oidc' | 'oauth';
  /** which template filled this in; it switches on the provider's quirks (GitHub emails, Apple form_post…) */
  template?: OAuthTemplate;
  /** oidc: discovery reads <issuer>/.well-known/openid-configuration */
  issuer?: string;
  /** oauth: required */
  authorizationEndpoint?: string;
  /** oauth: required */
  tokenEndpoint?: string;
  /** oauth: required; oidc: taken from discovery */
  userinfoEndpoint?: string;
  clientId: string;
  clientAuth: OAuthClientAuth;
  scopes: string[];
  /** PKCE with S256; default true */
  usePkce: boolean;
  /** oidc: also call userinfo and merge its claims over the ID token's; default false */
  useUserinfo: boolean;
  /** oauth: the userinfo field holding the user's stable id (e.g. 'id') */
  idAttribute?: string;
  /** the upstream vouches for the emails it returns without an email_verified claim; default false */
  emailVerifiedByProvider?: boolean;
  /** ExternalUser field -> claim (dotted path allowed); unset fields use the OIDC standard claims */
  mapping: ClaimMapping;
}

export interface OAuthProviderSecrets {
  clientSecret?: string;
  /** private_key_jwt: PKCS#8 PEM, RSA (RS256) or P-256 (ES256) */
  privateKey?: { pem: string; keyId: string };
  /** Apple: the client_secret is an ES256 JWT signed with this key */
  apple?: { teamId: string; keyId: string; privateKeyPem: string };
}

const KEY = 'Errors.IdP.OAuth.InvalidConfig';
const CLIENT_AUTHS: readonly OAuthClientAuth[] = [
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
  'none',
];
const TEMPLATES: readonly OAuthTemplate[] = [
  'google',
  'github',
  'github_enterprise',
  'gitlab',
  'gitlab_self_hosted',
  'azure_ad',
  'apple',
];

/** Hosts an upstream may be reached on over plain http: this machine only, for development and tests. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** Validates a provider configuration coming from the API; errors name the snake_case API field. */
export function checkOAuthConfig(c: unknown, secrets: OAuthProviderSecrets): OAuthProviderConfig {
  if (!c || typeof c !== 'object') throw invalidArgument(KEY, 'the provider configuration is missing');
  const o = c as Record<string, unknown>;
  const protocol = o.protocol;
  if (protocol !== 'oidc' && protocol !== 'oauth') throw invalidArgument(KEY, 'protocol must be oidc or oauth');
  if (o.template !== undefined && !TEMPLATES.includes(o.template as OAuthTemplate)) {
    throw invalidArgument(KEY, `template must be one of ${TEMPLATES.join(', ')}`);
  }
  const clientId = text(o.clientId, 'client_id', true);
  const clientAuth = o.clientAuth ?? 'client_secret_basic';
  if (!CLIENT_AUTHS.includes(clientAuth as OAuthClientAuth)) {
    throw invalidArgument(KEY, `client_auth must be one of ${CLIENT_AUTHS.join(', ')}`);
  }
  const scopes = scopeList(o.scopes, protocol);
  const config: OAuthProviderConfig = {
    protocol,
    template: o.template as OAuthTemplate | undefined,
    clientId,
    clientAuth: clientAuth as OAuthClientAuth,
    scopes,
    usePkce: flag(o.usePkce, 'use_pkce', true),
    useUserinfo: flag(o.useUserinfo, 'use_userinfo', false),
    emailVerifiedByProvider: flag(o.emailVerifiedByProvider, 'email_verified_by_provider', false),
    mapping: mapping(o.mapping),
  };
  if (protocol === 'oidc') {
    config.issuer = upstreamUrl(o.issuer, 'issuer', true);
  } else {
    config.authorizationEndpoint = upstreamUrl(o.authorizationEndpoint, 'authorization_endpoint', true);
    config.tokenEndpoint = upstreamUrl(o.tokenEndpoint, 'token_endpoint', true);
    config.userinfoEndpoint = upstreamUrl(o.userinfoEndpoint, 'userinfo_endpoint', true);
    config.idAttribute = text(o.idAttribute, 'id_attribute', true);
  }
  checkSecrets(config, secrets);
  return config;
}

function text(v: unknown, field: string, required: boolean): string {
  if (v === undefined || v === null || v === '') {
    if (required) throw invalidArgument(KEY, `${field} is required`);
    return '';
  }
  if (typeof v !== 'string' || v.length > 2000 || v.trim() !== v) {
    throw invalidArgument(KEY, `${field} must be a string of at most 2000 characters without surrounding spaces`);
  }
  return v;
}

function flag(v: unknown, field: string, fallback: boolean): boolean {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw invalidArgument(KEY, `${field} must be true or false`);
  return v;
}

function upstreamUrl(v: unknown, field: string, required: boolean): string {
  const s = text(v, field, required);
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw invalidArgument(KEY, `${field} must be an absolute URL`);
  }
  if (u.username || u.password || u.hash) {
    throw invalidArgument(KEY, `${field} must not carry credentials or a fragment`);
  }
  if (u.protocol === 'https:') return s;
  if (u.protocol === 'http:' && isLoopbackHost(u.hostname)) return s;
  throw invalidArgument(KEY, `${field} must be an https URL (plain http only for 127.0.0.1, localhost or [::1])`);
}

function scopeList(v: unknown, protocol: 'oidc' | 'oauth'): string[] {
  const scopes = v ?? (protocol === 'oidc' ? ['openid', 'profile', 'email'] : []);
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s))) {
    throw invalidArgument(KEY, 'scopes must be a list of scope tokens without spaces or quotes');
  }
  if (scopes.length > 50) throw invalidArgument(KEY, 'scopes must hold at most 50 scopes');
  if (protocol === 'oidc' && !scopes.includes('openid')) {
    throw invalidArgument(KEY, 'scopes must include openid for an OpenID Connect provider');
  }
  return [...new Set(scopes as string[])];
}

function mapping(v: unknown): ClaimMapping {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidArgument(KEY, 'mapping must be an object');
  const out: ClaimMapping = {};
  for (const [field, claim] of Object.entries(v)) {
    if (!(MAPPED_FIELDS as readonly string[]).includes(field)) {
      throw invalidArgument(KEY, `mapping.${field} is not a field that can be mapped`);
    }
    if (claim === undefined || claim === '') continue;
    if (typeof claim !== 'string' || claim.length > 200 || !/^[^.\s]+(\.[^.\s]+)*$/.test(claim)) {
      throw invalidArgument(KEY, `mapping.${field} must be a claim name or dotted path`);
    }
    out[field as keyof ClaimMapping] = claim;
  }
  return out;
}

/** The client authentication method must have the secret it signs or sends with. */
function checkSecrets(config: OAuthProviderConfig, secrets: OAuthProviderSecrets): void {
  if (config.template === 'apple') {
    if (!secrets.apple) throw invalidArgument(KEY, 'apple_private_key is required for Sign in with Apple');
    checkPem(secrets.apple.privateKeyPem, 'apple_private_key', 'ec');
    return;
  }
  switch (config.clientAuth) {
    case 'client_secret_basic':
    case 'client_secret_post':
      if (!secrets.clientSecret) throw invalidArgument(KEY, `client_secret is required with ${config.clientAuth}`);
      return;
    case 'private_key_jwt':
      if (!secrets.privateKey?.keyId) throw invalidArgument(KEY, 'private_key with a key id is required');
      checkPem(secrets.privateKey.pem, 'private_key');
      return;
    case 'none':
      if (!config.usePkce) throw invalidArgument(KEY, 'use_pkce must be true for a client without a secret');
      return;
  }
}

function checkPem(pem: string, field: string, type?: 'ec'): void {
  try {
    const key = createPrivateKey(pem);
    const kind = key.asymmetricKeyType;
    if (kind !== 'rsa' && kind !== 'ec') throw new Error(kind);
    if (type && kind !== type) throw new Error(kind);
    if (kind === 'ec' && key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('curve');
  } catch {
    const want = type === 'ec' ? 'a P-256 (ES256)' : 'an RSA or P-256';
    throw invalidArgument(KEY, `${field} must be ${want} private key in PKCS#8 PEM`);
  }
}
