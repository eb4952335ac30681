import { createPrivateKey } from 'node:crypto';
import { importPKCS8 } from 'jose';
import * as client from 'openid-client';
import { DomainError } from '../../errors';
import { appleClientSecret } from './apple';
import { type GuardedRequest, guardedFetch } from '../../outbound/guarded-fetch';
import type { OAuthProviderConfig, OAuthProviderSecrets } from './config';
import type { UpstreamCaches } from './upstream-caches';
import { upstreamFailure } from './upstream-errors';

export interface UpstreamOptions {
  /** per upstream request; default 10 000 ms */
  timeoutMs?: number;
  /** the server runs in development mode (isDevelopmentIssuer): loopback upstreams may be reached */
  development?: boolean;
  /**
   * replaces the guarded fetcher for every upstream request; the server never sets it (tests of the
   * protocol module route well-known hosts such as github.com to local servers with it)
   */
  fetch?: typeof fetch;
  /** the server's memory of discovery documents and keys (upstream-caches.ts); without it nothing is kept */
  caches?: UpstreamCaches;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** Discovery documents change rarely; a few minutes saves a round trip on every sign-in. */
const DISCOVERY_TTL_MS = 5 * 60_000;

/** openid-client's view of the upstream: discovered (oidc) or built from the configured endpoints (oauth). */
export async function upstreamClient(
  config: OAuthProviderConfig,
  secrets: OAuthProviderSecrets,
  opts: UpstreamOptions = {},
): Promise<client.Configuration> {
  const timeout = (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000;
  const fetchFn = opts.fetch ? replacedFetch(opts.fetch) : guardedUpstreamFetch(opts.development ?? false);
  const insecure = configuredUrls(config).some((u) => new URL(u).protocol === 'http:');
  const auth = await clientAuthentication(config, secrets);
  let c: client.Configuration;
  if (config.protocol === 'oidc') {
    try {
      c = await client.discovery(new URL(config.issuer ?? ''), config.clientId, undefined, auth, {
        [client.customFetch]: opts.caches ? cachedDiscovery(fetchFn, opts.caches) : fetchFn,
        timeout,
        execute: insecure ? [client.allowInsecureRequests] : [],
      });
    } catch (err) {
      throw upstreamFailure(err, 'discovery');
    }
    // The ID token's signature is checked against the upstream's JWKS, not only trusted for coming over TLS.
    client.enableNonRepudiationChecks(c);
    c[client.customFetch] = fetchFn;
    const cached = opts.caches?.jwks.get(config.issuer ?? '');
    if (cached) client.setJwksCache(c, cached);
  } else {
    const server: client.ServerMetadata = {
      // plain OAuth 2.0 has no issuer; nothing is checked against this one (ID tokens are dropped below)
      issuer: new URL(config.authorizationEndpoint ?? '').origin,
      authorization_endpoint: config.authorizationEndpoint,
      token_endpoint: config.tokenEndpoint,
      userinfo_endpoint: config.userinfoEndpoint,
    };
    c = new client.Configuration(server, config.clientId, undefined, auth);
    c[client.customFetch] = withoutIdToken(fetchFn, config.tokenEndpoint ?? '');
    c.timeout = timeout;
    if (insecure) client.allowInsecureRequests(c);
  }
  return c;
}

/** Keeps the keys openid-client fetched for the next sign-in through the same issuer. */
export function rememberKeys(config: OAuthProviderConfig, c: client.Configuration, opts: UpstreamOptions): void {
  const cache = config.protocol === 'oidc' ? client.getJwksCache(c) : undefined;
  if (cache && config.issuer) opts.caches?.jwks.set(config.issuer, cache);
}

function configuredUrls(config: OAuthProviderConfig): string[] {
  const urls = [config.issuer, config.authorizationEndpoint, config.tokenEndpoint, config.userinfoEndpoint];
  return urls.filter((u): u is string => !!u);
}

async function clientAuthentication(
  config: OAuthProviderConfig,
  secrets: OAuthProviderSecrets,
): Promise<client.ClientAuth> {
  if (config.template === 'apple' && secrets.apple) {
    return client.ClientSecretPost(await appleClientSecret(secrets.apple, config.clientId));
  }
  switch (config.clientAuth) {
    case 'client_secret_basic':
      return client.ClientSecretBasic(secrets.clientSecret);
    case 'client_secret_post':
      return client.ClientSecretPost(secrets.clientSecret);
    case 'none':
      return client.None();
    case 'private_key_jwt': {
      const pk = secrets.privateKey;
      if (!pk) throw new DomainError('failed_precondition', 'Errors.IdP.OAuth.InvalidConfig', 'private_key is missing');
      const alg = createPrivateKey(pk.pem).asymmetricKeyType === 'ec' ? 'ES256' : 'RS256';
      const key = { key: await importPKCS8(pk.pem, alg), kid: pk.keyId };
      if (config.template !== 'azure_ad' || !config.issuer) return client.PrivateKeyJwt(key);
      // openid-client addresses the assertion to the issuer, which for Entra's multi-tenant endpoints is
      // a {tenantid} template; Entra wants its token endpoint as the audience instead.
      const tokenEndpoint = config.issuer.replace(/\/v2\.0$/, '/oauth2/v2.0/token');
      return client.PrivateKeyJwt(key, {
        [client.modifyAssertion]: (_header, payload) => {
          payload.aud = tokenEndpoint;
        },
      });
    }
  }
}

/**
 * Every upstream request (discovery, JWKS, token, userinfo) goes through the guarded fetcher, whatever a
 * discovery document says: openid-client's switch for http is all or nothing, the fetcher's rule is not
 * (https, or http to a loopback host in development mode), and it follows no redirect.
 */
function guardedUpstreamFetch(development: boolean): client.CustomFetch {
  return (url, options) => {
    if (options.body instanceof ReadableStream) return Promise.reject(new TypeError('streamed bodies are not sent'));
    const purpose = `the upstream at ${new URL(url).origin}`;
    return guardedFetch(url, { ...options, body: options.body as GuardedRequest['body'], purpose, development });
  };
}

function replacedFetch(inner: typeof fetch): client.CustomFetch {
  return (url, options) => inner(url, options as RequestInit);
}

function cachedDiscovery(inner: client.CustomFetch, caches: UpstreamCaches): client.CustomFetch {
  return async (url, options) => {
    const hit = caches.discovery.get(url);
    if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) {
      return new Response(hit.body, { status: 200, headers: { 'content-type': hit.contentType } });
    }
    const res = await inner(url, options);
    if (res.status !== 200) return res;
    const body = await res.text();
    const contentType = res.headers.get('content-type') ?? 'application/json';
    caches.discovery.set(url, { at: Date.now(), body, contentType });
    return new Response(body, { status: 200, headers: { 'content-type': contentType } });
  };
}

/**
 * A plain OAuth 2.0 provider is trusted through its userinfo answer only. Some (and any OpenID provider
 * configured as plain OAuth) also return an ID token, which cannot be checked without an issuer and
 * keys: it is dropped rather than half-validated.
 */
function withoutIdToken(inner: client.CustomFetch, tokenEndpoint: string): client.CustomFetch {
  return async (url, options) => {
    const res = await inner(url, options);
    const contentType = res.headers.get('content-type') ?? '';
    if (new URL(url).href !== new URL(tokenEndpoint).href || !contentType.includes('json')) return res;
    const body = (await res.json()) as Record<string, unknown>;
    delete body.id_token;
    return new Response(JSON.stringify(body), { status: res.status, headers: { 'content-type': contentType } });
  };
}
