import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { basicAuth } from './basic-auth';
import type { BenchServer } from './server';

/**
 * A browser signing in through the hosted login and the relying party redeeming the code: what the oidc
 * scenario times and the writes scenario counts, so both measure the same flow.
 */
export const REDIRECT = 'https://rp.example.com/cb';
export const PASSWORD = 'Bench-User-Passw0rd!';

export interface Client {
  id: string;
  secret: string;
}

export interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
}

export function request(
  agent: http.Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A Connect JSON call as the admin (the bootstrap PAT); throws unless it answers 200. */
export type Rpc = (path: string, body: object) => Promise<any>;

export function adminRpc(agent: http.Agent, server: BenchServer): Rpc {
  return async (path, body) => {
    const res = await request(
      agent,
      server.port,
      'POST',
      path,
      { 'content-type': 'application/json', authorization: `Bearer ${server.pat}` },
      JSON.stringify(body),
    );
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body}`);
    return JSON.parse(res.body);
  };
}

/** A project with a web application (code flow and refresh tokens, client_secret_basic). */
export async function createWebApplication(rpc: Rpc, orgId: string): Promise<{ projectId: string; client: Client }> {
  const { projectId } = await rpc('/portcullis.project.v2.ProjectService/CreateProject', {
    organizationId: orgId,
    name: 'bench',
  });
  const app = await rpc('/portcullis.application.v2.ApplicationService/CreateApplication', {
    projectId,
    name: 'bench-web',
    oidc: {
      redirectUris: [REDIRECT],
      responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
      grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
    },
  });
  return { projectId, client: { id: app.oidc.clientId, secret: app.oidc.clientSecret } };
}

/** A human user with PASSWORD and a verified email; answers its id. */
export async function createPasswordUser(rpc: Rpc, orgId: string, username: string): Promise<string> {
  const { id } = await rpc('/portcullis.user.v2.UserService/CreateUser', {
    organizationId: orgId,
    username,
    human: {
      profile: { givenName: 'Bench', familyName: username },
      email: { email: `${username}@example.com`, isVerified: true },
      password: { password: PASSWORD },
    },
  });
  return id;
}

export interface FlowOptions {
  /** the user's TOTP code, sent after the password when the user has an authenticator app */
  totpCode?: string;
  /** default `openid profile email`; add `offline_access` for a refresh token */
  scope?: string;
}

/**
 * One browser doing a full login (with a user's TOTP code after the password, when it has an
 * authenticator app), then the relying party exchanging the code and calling userinfo.
 */
export async function fullFlow(
  agent: http.Agent,
  port: number,
  client: Client,
  username: string,
  opts: FlowOptions = {},
): Promise<TokenResponse> {
  const jar = new Map<string, string>();
  const go = async (method: string, path: string, form?: Record<string, string>) => {
    const headers: Record<string, string> = {};
    if (jar.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await request(
      agent,
      port,
      method,
      path,
      headers,
      form ? new URLSearchParams(form).toString() : undefined,
    );
    for (const sc of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
      const [pair] = sc.split(';');
      const i = pair.indexOf('=');
      jar.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  };
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const q = new URLSearchParams({
    client_id: client.id,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: opts.scope ?? 'openid profile email',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's',
  });
  const a = await go('GET', `/oauth/v2/authorize?${q}`);
  const loginPage = await go('GET', a.headers.location!);
  const authRequest = /name="authRequest" value="([^"]+)"/.exec(loginPage.body)![1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(loginPage.body)![1];
  await go('POST', '/ui/login/login', { authRequest, csrf, loginName: username });
  let done = await go('POST', '/ui/login/password', { authRequest, csrf, password: PASSWORD });
  if (opts.totpCode) {
    // the password step sends a user with one second factor straight to its page
    const page = await go('GET', done.headers.location!);
    if (page.status !== 200 || !done.headers.location!.startsWith('/ui/login/totp'))
      throw new Error(`no TOTP page: ${done.headers.location} ${page.status}`);
    done = await go('POST', '/ui/login/totp', { authRequest, csrf, code: opts.totpCode });
  }
  if (!done.headers.location?.startsWith('/oauth/v2/authorize/callback'))
    throw new Error(`login failed: ${done.headers.location}`);
  const cb = await go('GET', done.headers.location);
  const code = new URL(cb.headers.location!).searchParams.get('code')!;
  const tokenRes = await request(
    agent,
    port,
    'POST',
    '/oauth/v2/token',
    { authorization: basicAuth(client.id, client.secret), 'content-type': 'application/x-www-form-urlencoded' },
    new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    }).toString(),
  );
  if (tokenRes.status !== 200) throw new Error(`token: ${tokenRes.body}`);
  const tokens: TokenResponse = JSON.parse(tokenRes.body);
  const info = await request(agent, port, 'GET', '/oidc/v1/userinfo', {
    authorization: `Bearer ${tokens.access_token}`,
  });
  if (info.status !== 200) throw new Error(`userinfo: ${info.status}`);
  return tokens;
}
