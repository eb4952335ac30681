import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportPKCS8, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

/**
 * A real OpenID Connect provider (node-oidc-provider) on 127.0.0.1, playing the upstream identity
 * provider Portcullis signs users in through. Its login and consent prompts live at /interaction/<uid>:
 * JSON for `signInAt`, which drives them with plain fetch, and small HTML forms for a browser
 * (#login + #submit to sign in, #confirm to consent, #abort to refuse).
 */

export interface UpstreamAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  name?: string;
  [claim: string]: unknown;
}

export interface UpstreamClient {
  clientId: string;
  clientSecret?: string;
  /** private_key_jwt clients: the PKCS#8 PEM and key id the client signs its assertions with */
  privateKey?: { pem: string; keyId: string };
}

export interface UpstreamOidc {
  /** the base URL, which is also the issuer */
  url: string;
  issuer: string;
  /** client_secret_basic client */
  client: UpstreamClient;
  /** a second client_secret_basic client: the "other audience" */
  otherClient: UpstreamClient;
  /** private_key_jwt client (RS256) */
  jwtClient: UpstreamClient;
  /** an account; `userinfoOnly` claims appear at userinfo and never in the ID token */
  addAccount(claims: UpstreamAccount, userinfoOnly?: Record<string, unknown>): void;
  stop(): Promise<void>;
}

export interface UpstreamOidcOptions {
  /** redirect URIs every client registers; default http://127.0.0.1:9/callback */
  redirectUris?: string[];
}

export const DEFAULT_REDIRECT = 'http://127.0.0.1:9/callback';

/** The few parts of node-oidc-provider this harness touches (the package ships no types). */
interface ProviderLike {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionLike>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    opts?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: GrantCtor;
}
interface InteractionLike {
  uid: string;
  grantId?: string;
  params: Record<string, string>;
  session?: { accountId: string };
  prompt: { name: string; details: Record<string, unknown> };
}
interface GrantLike {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}
interface GrantCtor {
  new (p: { accountId: string; clientId: string }): GrantLike;
  find(id: string): Promise<GrantLike | undefined>;
}

// A variable specifier keeps tsc from demanding type declarations the package does not ship.
const OIDC_PROVIDER = 'oidc-provider';

export async function startUpstreamOidc(opts: UpstreamOidcOptions = {}): Promise<UpstreamOidc> {
  const redirectUris = opts.redirectUris ?? [DEFAULT_REDIRECT];
  const accounts = new Map<string, { claims: UpstreamAccount; userinfoOnly: Record<string, unknown> }>();
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => handler?.(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const signing = await generateKeyPair('RS256', { extractable: true });
  const signingJwk = { ...(await exportJWK(signing.privateKey)), kid: 'upstream-1', alg: 'RS256', use: 'sig' };
  const clientKey = await generateKeyPair('RS256', { extractable: true });
  const clientJwk = { ...(await exportJWK(clientKey.publicKey)), kid: 'rp-key-1', alg: 'RS256', use: 'sig' };

  const client: UpstreamClient = { clientId: 'rp', clientSecret: 'rp-secret-0123456789' };
  const otherClient: UpstreamClient = { clientId: 'other-rp', clientSecret: 'other-secret-0123456789' };
  const jwtClient: UpstreamClient = {
    clientId: 'rp-jwt',
    privateKey: { pem: await exportPKCS8(clientKey.privateKey), keyId: 'rp-key-1' },
  };
  const basic = (c: UpstreamClient) => ({
    client_id: c.clientId,
    client_secret: c.clientSecret,
    redirect_uris: redirectUris,
    token_endpoint_auth_method: 'client_secret_basic',
  });

  const { default: Provider } = (await import(OIDC_PROVIDER)) as {
    default: new (issuer: string, config: Record<string, unknown>) => ProviderLike;
  };
  const provider = new Provider(url, {
    clients: [
      basic(client),
      basic(otherClient),
      {
        client_id: jwtClient.clientId,
        redirect_uris: redirectUris,
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'RS256',
        jwks: { keys: [clientJwk] },
      },
    ],
    jwks: { keys: [signingJwk] },
    cookies: { keys: [randomUUID()] },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    // ID tokens carry the scope's claims, as Google's and GitLab's do; userinfo-only claims test the merge.
    conformIdTokenClaims: false,
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name', 'preferred_username', 'locale', 'picture'],
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: async (use: string) =>
          use === 'userinfo' ? { ...account.claims, ...account.userinfoOnly } : account.claims,
      };
    },
  });
  const oidc = provider.callback();

  handler = (req, res) => {
    const m = /^\/interaction\/([^/?]+)(?:\/(login|confirm|abort))?$/.exec(new URL(req.url ?? '/', url).pathname);
    if (!m) return oidc(req, res);
    interaction(provider, req, res, m[2]).catch((err: Error) => {
      res.statusCode = 500;
      res.end(String(err.stack ?? err));
    });
  };

  return {
    url,
    issuer: url,
    client,
    otherClient,
    jwtClient,
    addAccount: (claims, userinfoOnly = {}) => accounts.set(claims.sub, { claims, userinfoOnly }),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined),
  };
}

/** The login and consent "pages": GET shows the prompt as JSON, POST login / confirm / abort answers it. */
async function interaction(provider: ProviderLike, req: IncomingMessage, res: ServerResponse, action?: string) {
  const details = await provider.interactionDetails(req, res);
  if (!action) {
    if (req.headers.accept?.includes('text/html')) {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(interactionPage(details.uid, details.prompt.name));
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ uid: details.uid, prompt: details.prompt.name, params: details.params }));
    return;
  }
  const form = new URLSearchParams(await readBody(req));
  if (action === 'abort') {
    const result = { error: 'access_denied', error_description: 'the user refused' };
    return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }
  if (action === 'login') {
    return provider.interactionFinished(req, res, { login: { accountId: form.get('login') ?? '' } });
  }
  const accountId = details.session?.accountId ?? '';
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId: details.params.client_id });
  if (!grant) throw new Error('grant not found');
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '));
  }
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId } });
}

/** The same prompts as HTML forms, for a browser test: #login + #submit, or #confirm; #abort refuses. */
function interactionPage(uid: string, prompt: string): string {
  const at = `/interaction/${encodeURIComponent(uid)}`;
  const answer =
    prompt === 'login'
      ? `<form method="post" action="${at}/login"><label>User <input id="login" name="login"></label>` +
        '<button id="submit" type="submit">Sign in</button></form>'
      : `<form method="post" action="${at}/confirm"><button id="confirm" type="submit">Allow</button></form>`;
  const abort = `<form method="post" action="${at}/abort"><button id="abort" type="submit">Cancel</button></form>`;
  return `<!doctype html><html><body><h1>Upstream ${prompt}</h1>${answer}${abort}</body></html>`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/**
 * Plays the user's browser at the upstream: follows redirects from `authorizationUrl`, signs in as
 * `login`, grants consent (or refuses it with `refuse`), and returns the parameters the upstream sent
 * back to the redirect URI (query, or the fields of a form_post page).
 */
export async function signInAt(
  authorizationUrl: string,
  login: string,
  opts: { refuse?: boolean } = {},
): Promise<URLSearchParams> {
  const jar = new Map<string, string>();
  const send = async (target: string, body?: URLSearchParams) => {
    const res = await fetch(target, {
      method: body ? 'POST' : 'GET',
      redirect: 'manual',
      body,
      headers: { accept: 'application/json', cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return res;
  };
  const origin = new URL(authorizationUrl).origin;
  let res = await send(authorizationUrl);
  for (let hops = 0; hops < 20; hops++) {
    const location = res.headers.get('location');
    if (!location) {
      const html = await res.text();
      if (res.status !== 200 || !html.includes('<form')) throw new Error(`upstream answered ${res.status}: ${html}`);
      return formPostFields(html);
    }
    const next = new URL(location, origin);
    if (next.origin !== origin) return new URLSearchParams(next.search || next.hash.slice(1));
    const m = /^\/interaction\/([^/]+)$/.exec(next.pathname);
    if (!m) {
      res = await send(next.href);
      continue;
    }
    const shown = (await (await send(next.href)).json()) as { prompt: string };
    const action = opts.refuse ? 'abort' : shown.prompt === 'login' ? 'login' : 'confirm';
    res = await send(`${next.href}/${action}`, new URLSearchParams({ login }));
  }
  throw new Error('too many redirects at the upstream');
}

function formPostFields(html: string): URLSearchParams {
  const out = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
    out.append(
      m[1],
      m[2]
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#x27;/g, "'"),
    );
  }
  return out;
}

/**
 * A deliberately dishonest OpenID provider built from jose: discovery, a JWKS and a token endpoint
 * that hands out whatever ID token the test asks for (other audience, wrong key, expired…).
 */
export interface FakeUpstream {
  url: string;
  issuer: string;
  /** what the next token responses carry; `signWithForeignKey` signs with a key absent from the JWKS */
  idToken: { claims?: JWTPayload; signWithForeignKey?: boolean; omit?: boolean };
  /** the form body and headers of the last token request, to check client authentication */
  lastTokenRequest?: { body: URLSearchParams; authorization?: string };
  stop(): Promise<void>;
}

export interface FakeUpstreamOptions {
  /** issuer to announce; default the server's URL + issuerPath */
  issuer?: string;
  /** path prefix under which discovery, keys and token endpoint live */
  issuerPath?: string;
  /** the origin the discovery document names (a real provider's, reached through a test fetch); default url */
  publicOrigin?: string;
}

export async function startFakeUpstream(opts: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const published = await generateKeyPair('RS256', { extractable: true });
  const foreign = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(published.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', fake.url).pathname;
    res.setHeader('content-type', 'application/json');
    if (path.endsWith('/.well-known/openid-configuration')) {
      const base = `${opts.publicOrigin ?? fake.url}${opts.issuerPath ?? ''}`;
      return res.end(
        JSON.stringify({
          issuer: fake.issuer,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          jwks_uri: `${base}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
        }),
      );
    }
    if (path.endsWith('/jwks')) return res.end(JSON.stringify({ keys: [jwk] }));
    if (path.endsWith('/token')) {
      void readBody(req)
        .then((body) => {
          fake.lastTokenRequest = { body: new URLSearchParams(body), authorization: req.headers.authorization };
          return tokenResponse();
        })
        .then((body) => res.end(JSON.stringify(body)));
      return;
    }
    res.statusCode = 404;
    res.end('{}');
  });
  const tokenResponse = async () => {
    const now = Math.floor(Date.now() / 1000);
    const { claims = {}, signWithForeignKey, omit } = fake.idToken;
    const body: Record<string, unknown> = { access_token: 'at-1', token_type: 'Bearer', expires_in: 300 };
    if (!omit) {
      body.id_token = await new SignJWT({ iss: fake.issuer, sub: 'fake-user', iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .sign(signWithForeignKey ? foreign.privateKey : published.privateKey);
    }
    return body;
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeUpstream = {
    url,
    issuer: opts.issuer ?? `${url}${opts.issuerPath ?? ''}`,
    idToken: {},
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}

/** A fetch that sends requests for real providers' origins (https://github.com…) to local test servers. */
export function routedFetch(routes: Record<string, string>): typeof fetch {
  return (input, init) => {
    let url = input instanceof Request ? input.url : String(input);
    for (const [from, to] of Object.entries(routes)) {
      if (url.startsWith(from)) url = to + url.slice(from.length);
    }
    return fetch(url, init);
  };
}
