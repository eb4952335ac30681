import * as client from 'openid-client';
import { systemPrincipal } from '../../src/authz/principal';
import type { Ctx } from '../../src/domain/context';
import { createApplication } from '../../src/domain/application/commands';
import type { OidcAppConfig } from '../../src/db/schema/applications';
import { createProject } from '../../src/domain/project/commands';
import { createUser } from '../../src/domain/user/create-user';
import { findInstance } from '../../src/domain/instance/queries';
import type { TestServer } from '../helpers/server';

export const PASSWORD = 'Secret-Passw0rd!';

export function systemCtx(server: TestServer): Ctx {
  const { deps } = server.app;
  return {
    db: deps.database.db,
    instanceId: deps.instanceId,
    principal: systemPrincipal(deps.instanceId, 'test'),
    service: 'test',
  };
}

export async function defaultOrg(server: TestServer): Promise<string> {
  return (await findInstance(server.app.deps.database.db))!.defaultOrgId;
}

let counter = 0;
const unique = (p: string) => `${p}${Date.now().toString(36)}${(counter++).toString(36)}`;

export async function addUser(
  server: TestServer,
  opts: { orgId?: string; username?: string; password?: string; email?: string } = {},
) {
  const orgId = opts.orgId ?? (await defaultOrg(server));
  const username = opts.username ?? unique('user');
  const { id } = await createUser(systemCtx(server), {
    orgId,
    username,
    human: {
      profile: { givenName: 'Ada', familyName: 'Lovelace' },
      email: { email: opts.email ?? `${username}@example.com`, verification: { verified: true } },
      password: { password: opts.password ?? PASSWORD, changeRequired: false },
    },
  });
  return { id, username, orgId, password: opts.password ?? PASSWORD };
}

export async function addProject(
  server: TestServer,
  flags: { projectRoleAssertion?: boolean; authorizationRequired?: boolean } = {},
) {
  const orgId = await defaultOrg(server);
  const { id } = await createProject(systemCtx(server), { orgId, name: unique('project'), ...flags });
  return id;
}

export const REDIRECT = 'https://rp.example.com/cb';
export const LOGOUT_REDIRECT = 'https://rp.example.com/logged-out';

export async function addOidcApp(server: TestServer, projectId: string, oidc: Partial<OidcAppConfig> = {}) {
  const app = await createApplication(systemCtx(server), {
    projectId,
    name: unique('app'),
    config: {
      type: 'OIDC',
      oidc: {
        redirectUris: [REDIRECT],
        postLogoutRedirectUris: [LOGOUT_REDIRECT],
        responseTypes: ['CODE', 'ID_TOKEN', 'ID_TOKEN_TOKEN'],
        grantTypes: ['AUTHORIZATION_CODE', 'IMPLICIT', 'REFRESH_TOKEN'],
        authMethodType: 'BASIC',
        ...oidc,
      },
    },
  });
  return { applicationId: app.id, clientId: app.clientId!, clientSecret: app.clientSecret };
}

export async function addApiApp(server: TestServer, projectId: string) {
  const app = await createApplication(systemCtx(server), {
    projectId,
    name: unique('api'),
    config: { type: 'API', api: { authMethodType: 'BASIC' } },
  });
  return { applicationId: app.id, clientId: app.clientId!, clientSecret: app.clientSecret! };
}

/** An openid-client Configuration for the app against the test server (http allowed). */
export async function rp(
  server: TestServer,
  clientId: string,
  secretOrMetadata?: string | Partial<client.ClientMetadata>,
  auth?: client.ClientAuth,
) {
  return client.discovery(new URL(server.url), clientId, secretOrMetadata, auth, {
    execute: [client.allowInsecureRequests],
  });
}

/** A tiny browser: a cookie jar and manual redirects, enough to drive the server-rendered login. */
export class Browser {
  cookies = new Map<string, string>();
  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(this.headers)) headers.set(k, v);
    if (this.cookies.size) headers.set('cookie', this.cookieHeader());
    const res = await fetch(new URL(url, this.base), { ...init, headers, redirect: 'manual' });
    for (const sc of res.headers.getSetCookie()) {
      const [pair] = sc.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (/max-age=0/i.test(sc) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Follows redirects on our server; stops at a page (200/4xx) or a redirect to another origin. */
  async go(url: string, init: RequestInit = {}): Promise<{ url: string; res: Response; html: string }> {
    let current = new URL(url, this.base).toString();
    let res = await this.request(current, init);
    for (let i = 0; i < 20 && res.status >= 300 && res.status < 400; i++) {
      const next = new URL(res.headers.get('location')!, current).toString();
      if (new URL(next).origin !== new URL(this.base).origin) return { url: next, res, html: '' };
      current = next;
      res = await this.request(current);
    }
    return { url: current, res, html: await res.text() };
  }

  /** Submits the page's form whose action matches, with its hidden fields plus `fields`. */
  async submit(page: { html: string }, action: string, fields: Record<string, string>) {
    const formRe = new RegExp(`<form[^>]*action="${action.replace(/[/]/g, '\\/')}"[^>]*>([\\s\\S]*?)</form>`);
    const form = formRe.exec(page.html);
    if (!form) throw new Error(`no form ${action} in page: ${page.html.slice(0, 500)}`);
    const body = new URLSearchParams();
    for (const m of form[1].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
      body.set(m[1], decodeHtml(m[2]));
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    return this.go(action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  }

  /** Full password login from an authorization URL; returns the URL the browser lands on at the client. */
  async login(authUrl: string, loginName: string, password: string): Promise<string> {
    let page = await this.go(authUrl);
    if (page.url.includes('/ui/login/login')) page = await this.submit(page, '/ui/login/login', { loginName });
    if (page.url.includes('/ui/login/password')) page = await this.submit(page, '/ui/login/password', { password });
    if (!page.url.startsWith('https://rp.example.com') && !page.url.startsWith('http://127.0.0.1:1')) {
      throw new Error(`login did not reach the client: ${page.url} ${page.res.status} ${page.html.slice(0, 300)}`);
    }
    return page.url;
  }
}

function decodeHtml(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

export async function postForm(
  server: { url: string },
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
}

/** Runs the code flow up to the code (password login in the tiny browser); returns what the exchange needs. */
export async function getCode(
  server: TestServer,
  config: client.Configuration,
  user: { username: string; password: string },
  extra: Record<string, string> = {},
  browser = new Browser(server.url),
) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid profile email offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  const landed = new URL(await browser.login(url.toString(), user.username, user.password));
  return { landed, verifier, state, browser, code: landed.searchParams.get('code')! };
}

/** Code flow all the way to tokens. */
export async function codeFlowTokens(
  server: TestServer,
  config: client.Configuration,
  user: { username: string; password: string },
  extra: Record<string, string> = {},
) {
  const r = await getCode(server, config, user, extra);
  const tokens = await client.authorizationCodeGrant(config, r.landed, {
    pkceCodeVerifier: r.verifier,
    expectedState: r.state,
    expectedNonce: extra.nonce,
  });
  return { ...r, tokens };
}

/**
 * A whole sign-in through the hosted login and the code exchange; answers the subject the ID token
 * names, or undefined when the sign-in fails anywhere (wrong password, unknown or ambiguous name).
 */
export async function signedInSubject(
  server: { url: string },
  config: client.Configuration,
  loginName: string,
  password: string,
  scope = 'openid',
) {
  try {
    const url = await new Browser(server.url).login(
      client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope }).toString(),
      loginName,
      password,
    );
    const tokens = await client.authorizationCodeGrant(config, new URL(url), { expectedState: client.skipStateCheck });
    return tokens.claims()?.sub;
  } catch {
    return undefined;
  }
}
