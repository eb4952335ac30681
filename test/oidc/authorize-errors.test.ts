import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { addUser } from '../helpers/users';

/** Negative tests of the baseline's authorization endpoint rules. */
describe('authorization endpoint errors', () => {
  let server: TestServer;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let codeOnly: Awaited<ReturnType<typeof addOidcApp>>;
  let publicApp: Awaited<ReturnType<typeof addOidcApp>>;
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  beforeAll(async () => {
    server = await startTestServer();
    const project = await addProject(server);
    app = await addOidcApp(server, project);
    codeOnly = await addOidcApp(server, project, { responseTypes: ['CODE'], grantTypes: ['AUTHORIZATION_CODE'] });
    publicApp = await addOidcApp(server, project, { authMethodType: 'NONE', applicationType: 'USER_AGENT' });
    await addUser(server);
  });
  afterAll(() => server?.stop());

  const authorize = (params: Record<string, string> | string, init: RequestInit = {}) => {
    const qs = typeof params === 'string' ? params : new URLSearchParams(params).toString();
    return fetch(`${server.url}/oauth/v2/authorize?${qs}`, { redirect: 'manual', ...init });
  };
  const base = () => ({
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid',
    state: 'st-1',
  });
  const errorOf = async (res: Response) => {
    expect(res.status).toBe(303);
    const loc = new URL(res.headers.get('location')!);
    expect(loc.origin + loc.pathname).toBe(REDIRECT);
    const p = loc.hash ? new URLSearchParams(loc.hash.slice(1)) : loc.searchParams;
    expect(p.get('iss')).toBe(server.url);
    return { error: p.get('error'), state: p.get('state'), description: p.get('error_description') };
  };

  it('unknown client: error page 400, never a redirect', async () => {
    const res = await authorize({ ...base(), client_id: 'nope' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toContain('text/html');
  });

  it('missing, unregistered or malformed redirect_uri: error page 400', async () => {
    const { redirect_uri: _, ...noRedirect } = base();
    for (const params of [
      noRedirect,
      { ...base(), redirect_uri: 'https://evil.example.com/cb' },
      { ...base(), redirect_uri: `${REDIRECT}/` },
      { ...base(), redirect_uri: 'not a url' },
    ]) {
      const res = await authorize(params);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it('redirect_uri repeated: error page', async () => {
    const res = await authorize(`${new URLSearchParams(base())}&redirect_uri=${encodeURIComponent(REDIRECT)}`);
    expect(res.status).toBe(400);
  });

  it('repeated parameter → invalid_request with state and iss', async () => {
    const e = await errorOf(await authorize(`${new URLSearchParams(base())}&scope=openid`));
    expect(e).toMatchObject({ error: 'invalid_request', state: 'st-1' });
  });

  it('missing → invalid_request; unknown → unsupported_response_type; not allowed → unauthorized_client', async () => {
    const { response_type: _, ...rest } = base();
    expect((await errorOf(await authorize(rest))).error).toBe('invalid_request');
    expect((await errorOf(await authorize({ ...base(), response_type: 'token' }))).error).toBe(
      'unsupported_response_type',
    );
    const e = await errorOf(
      await authorize({ ...base(), client_id: codeOnly.clientId, response_type: 'id_token', nonce: 'n' }),
    );
    expect(e.error).toBe('unauthorized_client');
  });

  it('scope without openid → invalid_scope; no scope at all → invalid_request (§7.1)', async () => {
    expect((await errorOf(await authorize({ ...base(), scope: 'profile' }))).error).toBe('invalid_scope');
    const { scope: _, ...noScope } = base();
    expect((await errorOf(await authorize(noScope))).error).toBe('invalid_request');
    expect((await errorOf(await authorize({ ...base(), scope: '' }))).error).toBe('invalid_request');
  });

  it('PKCE: plain is invalid_request, challenge without method too; public clients must use PKCE', async () => {
    expect(
      (await errorOf(await authorize({ ...base(), code_challenge: challenge, code_challenge_method: 'plain' }))).error,
    ).toBe('invalid_request');
    expect((await errorOf(await authorize({ ...base(), code_challenge: challenge }))).error).toBe('invalid_request');
    expect((await errorOf(await authorize({ ...base(), client_id: publicApp.clientId }))).error).toBe(
      'invalid_request',
    );
  });

  it('implicit flow without nonce → invalid_request (in the fragment)', async () => {
    const res = await authorize({ ...base(), response_type: 'id_token' });
    expect(res.headers.get('location')).toContain('#');
    expect((await errorOf(res)).error).toBe('invalid_request');
  });

  it('prompt=none without a session → login_required to the redirect URI', async () => {
    const e = await errorOf(await authorize({ ...base(), prompt: 'none' }));
    expect(e).toMatchObject({ error: 'login_required', state: 'st-1' });
  });

  it('invalid max_age → invalid_request', async () => {
    expect((await errorOf(await authorize({ ...base(), max_age: '-1' }))).error).toBe('invalid_request');
  });

  it('a forged id_token_hint with prompt=none → login_required', async () => {
    const header = Buffer.from('{"alg":"none"}').toString('base64url');
    const payload = Buffer.from('{"sub":"1"}').toString('base64url');
    const forged = `${header}.${payload}.`;
    expect((await errorOf(await authorize({ ...base(), prompt: 'none', id_token_hint: forged }))).error).toBe(
      'login_required',
    );
  });

  it('unknown parameters and invalid response_mode are ignored; POST works too', async () => {
    const res = await authorize({ ...base(), foo: 'bar', response_mode: 'bogus' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('/ui/login/login');
    const post = await fetch(`${server.url}/oauth/v2/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(base()),
    });
    expect(post.status).toBe(303);
    expect(post.headers.get('location')).toContain('/ui/login/login');
  });

  it('form_post error: an HTML page posting the parameters, nothing in the URL', async () => {
    const res = await authorize({ ...base(), prompt: 'none', response_mode: 'form_post' });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`action="${REDIRECT}"`);
    expect(html).toContain('name="error" value="login_required"');
    expect(html).toContain('name="state" value="st-1"');
    expect(html).toContain(`name="iss" value="${server.url}"`);
  });

  it('an expired or unknown auth request shows the error page', async () => {
    const b = new Browser(server.url);
    const page = await b.go('/ui/login/login?authRequest=ar_unknown');
    expect(page.res.status).toBe(400);
    const cb = await b.go('/oauth/v2/authorize/callback?id=ar_unknown');
    expect(cb.res.status).toBe(400);
  });
});
