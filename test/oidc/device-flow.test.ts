import http from 'node:http';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { addDeviceApp, answerInBrowser, DEVICE_GRANT, poll, signInForCode, startDevice } from '../helpers/device-flow';
import { basic, postFormJson } from '../helpers/forms';
import { rp } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';
import { addReadyFactor } from '../helpers/factors';
import { rows } from '../helpers/rows';
import { pruneExpiredOidcRows } from '../../src/domain/oidc/cleanup';
import { totpCode } from '../helpers/totp';
import { Code, ConnectError } from '@connectrpc/connect';
import { OIDCService } from '../../gen/portcullis/oidc/v2/oidc_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';

/** The secret addReadyFactor gives a TOTP factor. */
const TOTP_SECRET = 'JBSWY3DPEHPK3PXP';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

describe('device authorization grant (RFC 8628)', () => {
  let server: TestServer;
  let app: Awaited<ReturnType<typeof addDeviceApp>>;
  let user: Awaited<ReturnType<typeof addUser>>;
  beforeAll(async () => {
    server = await startTestServer();
    app = await addDeviceApp(server);
    user = await addUser(server);
  });
  afterAll(() => server?.stop());

  it('openid-client: initiate, the user approves in the hosted login, polling gets that user’s tokens', async () => {
    const config = await rp(server, app.clientId, { token_endpoint_auth_method: 'none' }, client.None());
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${server.url}/oauth/v2/device_authorization`);
    expect(config.serverMetadata().grant_types_supported).toContain(DEVICE_GRANT);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile offline_access' });
    expect(started.user_code).toMatch(USER_CODE);
    expect(started.verification_uri).toBe(`${server.url}/ui/login/device`);
    expect(started.verification_uri_complete).toBe(`${server.url}/ui/login/device?user_code=${started.user_code}`);
    expect(started.expires_in).toBe(600);
    expect(started.interval).toBe(5);
    expect(started.device_code.length).toBeGreaterThanOrEqual(43);

    const polling = client.pollDeviceAuthorizationGrant(config, started);
    // verification_uri_complete fills the form; the user confirms it, typed lower case without the dash
    const browser = new Browser(server.url);
    const prefilled = await browser.go(started.verification_uri_complete!);
    expect(prefilled.html).toContain(`value="${started.user_code}"`);
    const done = await answerInBrowser(browser, started.user_code.replace('-', '').toLowerCase(), user, 'allow');
    expect(done.url).toContain('/ui/login/device/done');
    expect(done.html).toContain('Your device is connected');

    const tokens = await polling;
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(user.id);
    expect(claims.amr).toContain('pwd');
    expect(typeof claims.auth_time).toBe('number');
    expect(tokens.refresh_token).toBeTruthy();
    const info = await client.fetchUserInfo(config, tokens.access_token, user.id);
    expect(info.sub).toBe(user.id);
    // the refresh token works like the code flow's
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();

    // the device code answers once
    const again = await poll(server, app.clientId, started.device_code);
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('a confidential client authenticates as at the token endpoint; a wrong secret is invalid_client', async () => {
    const conf = await addOidcApp(server, await addProject(server), {
      grantTypes: ['AUTHORIZATION_CODE', 'DEVICE_CODE'],
    });
    const ok = await postFormJson(
      server,
      '/oauth/v2/device_authorization',
      { scope: 'openid' },
      { authorization: basic(conf.clientId, conf.clientSecret!) },
    );
    expect(ok.status).toBe(200);
    expect(ok.body.user_code).toMatch(USER_CODE);
    const bad = await postFormJson(
      server,
      '/oauth/v2/device_authorization',
      { scope: 'openid' },
      { authorization: basic(conf.clientId, 'wrong') },
    );
    expect(bad).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    // a public client's poll with the confidential client's device code gets nothing
    const stolen = await poll(server, app.clientId, ok.body.device_code);
    expect(stolen).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('denied by the user: access_denied', async () => {
    const { body } = await startDevice(server, app.clientId);
    const done = await answerInBrowser(new Browser(server.url), body.user_code, user, 'deny');
    expect(done.html).toContain('Access denied');
    expect(await poll(server, app.clientId, body.device_code)).toMatchObject({
      status: 400,
      body: { error: 'access_denied' },
    });
  });

  it('the login policy applies: TOTP before the consent; the API refuses a password-only session', async () => {
    const mfaUser = await addUser(server);
    await addReadyFactor(server, { id: mfaUser.id, orgId: mfaUser.orgId }, 'totp');
    const { body } = await startDevice(server, app.clientId);
    // a custom login UI cannot skip the second factor either
    const session = await server.client(SessionService).createSession({
      checks: {
        user: { search: { case: 'loginName', value: mfaUser.username } },
        password: { password: mfaUser.password },
      },
    });
    const viaApi = await server
      .client(OIDCService)
      .authorizeOrDenyDeviceAuthorization({
        userCode: body.user_code,
        decision: { case: 'session', value: { sessionId: session.sessionId, sessionToken: session.sessionToken } },
      })
      .catch((err) => (err instanceof ConnectError ? err.code : err));
    expect(viaApi).toBe(Code.FailedPrecondition);

    const browser = new Browser(server.url);
    const totp = await signInForCode(browser, body.user_code, mfaUser);
    expect(totp.url).toContain('/ui/login/totp?authRequest=');
    // the consent cannot be reached before the second factor
    const authRequest = new URL(totp.url).searchParams.get('authRequest')!;
    expect((await browser.go(`/ui/login/device/consent?authRequest=${authRequest}`)).url).toContain('error=gone');
    const consent = await browser.submit(totp, '/ui/login/totp', { code: await totpCode(TOTP_SECRET) });
    expect(consent.url).toContain('/ui/login/device/consent');
    await browser.submit(consent, '/ui/login/device/consent', { decision: 'allow' });
    const tokens = await poll(server, app.clientId, body.device_code);
    expect(tokens.status).toBe(200);
    const claims = JSON.parse(Buffer.from(tokens.body.id_token.split('.')[1], 'base64url').toString());
    expect(claims.sub).toBe(mfaUser.id);
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
  });

  it('a client without the DEVICE_CODE grant type: unauthorized_client at both endpoints', async () => {
    const plain = await addDeviceApp(server, ['AUTHORIZATION_CODE']);
    expect(await startDevice(server, plain.clientId)).toMatchObject({
      status: 400,
      body: { error: 'unauthorized_client' },
    });
    const { body } = await startDevice(server, app.clientId);
    expect(await poll(server, plain.clientId, body.device_code)).toMatchObject({
      status: 400,
      body: { error: 'unauthorized_client' },
    });
    expect(await startDevice(server, 'no-such-client')).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
  });

  it('an unknown device code, or none: invalid_grant / invalid_request, never a 500', async () => {
    expect(await poll(server, app.clientId, 'made-up')).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    const none = await postFormJson(server, '/oauth/v2/token', { grant_type: DEVICE_GRANT, client_id: app.clientId });
    expect(none).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('a wrong user code on the page: the form again with an error, nothing started', async () => {
    const browser = new Browser(server.url);
    for (const typed of ['BCDF-GHJK', 'hello', 'AAAA-AAAA', "'; drop table x; --"]) {
      const page = await signInForCode(browser, typed);
      expect(page.url).toContain('/ui/login/device?error=code');
      expect(page.res.status).toBe(400);
      expect(page.html).toContain('This code is wrong or has expired');
    }
  });

  it('a code approved by the session of another request or browser is refused; the device stays pending', async () => {
    const { body } = await startDevice(server, app.clientId);
    const owner = new Browser(server.url);
    const consent = await signInForCode(owner, body.user_code, user);
    expect(consent.url).toContain('/ui/login/device/consent');
    const authRequest = new URL(consent.url).searchParams.get('authRequest')!;

    // another browser, signed in as someone else, tries the owner's consent page and form
    const attacker = await addUser(server);
    const other = new Browser(server.url);
    const mine = await startDevice(server, app.clientId);
    const otherConsent = await signInForCode(other, mine.body.user_code, attacker);
    expect((await other.go(`/ui/login/device/consent?authRequest=${authRequest}`)).url).toContain('error=gone');
    const forged = await other.submit(
      {
        html: otherConsent.html.replace(
          /name="authRequest" value="[^"]*"/,
          `name="authRequest" value="${authRequest}"`,
        ),
      },
      '/ui/login/device/consent',
      { decision: 'allow' },
    );
    expect(forged.url).toContain('error=gone');
    expect((await poll(server, app.clientId, body.device_code)).body.error).toBe('authorization_pending');

    // the consent of an ordinary code-flow auth request does not approve a device
    const config = await rp(server, app.clientId, { token_endpoint_auth_method: 'none' }, client.None());
    const authUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      prompt: 'login',
    });
    const codeFlow = await owner.go(authUrl.toString());
    const codeRequest = new URL(codeFlow.url).searchParams.get('authRequest')!;
    expect((await owner.go(`/ui/login/device/consent?authRequest=${codeRequest}`)).url).toContain('error=gone');

    // typing the code again starts a new request: the older consent page no longer answers
    const retyped = await signInForCode(owner, body.user_code, user);
    expect(retyped.url).toContain('/ui/login/device/consent');
    const stale = await owner.submit(consent, '/ui/login/device/consent', { decision: 'allow' });
    expect(stale.url).toContain('error=gone');
    expect((await owner.submit(retyped, '/ui/login/device/consent', { decision: 'allow' })).url).toContain('done');
  });

  it('user-code guesses count against the login rate limit of the address (429 page)', async () => {
    const instance = server.client(InstanceService);
    await instance.updateInstanceSettings({ loginRateLimitPerAddress: 3 });
    try {
      const from = '127.0.0.9';
      const first = await send(server.url, '/ui/login/device', { from });
      const csrf = /name="csrf" value="([^"]+)"/.exec(first.body)![1];
      const cookie = String(first.headers['set-cookie']).split(';')[0];
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const guess = await send(server.url, '/ui/login/device', {
          from,
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
          body: new URLSearchParams({ csrf, user_code: `BCDF-GHJ${'KLMNP'[i]}` }).toString(),
        });
        statuses.push(guess.status);
      }
      expect(statuses).toEqual([303, 303, 303, 429, 429]);
    } finally {
      await instance.updateInstanceSettings({ loginRateLimitPerAddress: 300 });
    }
  });
});

/**
 * The clock of the whole process (server included) is moved forward here instead of waiting: Date only,
 * never backwards (the rate limiter's windows must not see time run back), on a server of its own.
 */
describe('device authorization grant: time', () => {
  let server: TestServer;
  let app: Awaited<ReturnType<typeof addDeviceApp>>;
  beforeAll(async () => {
    server = await startTestServer();
    app = await addDeviceApp(server);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now());
  });
  afterAll(async () => {
    await server?.stop();
    vi.useRealTimers();
  });

  it('pending, then polled too fast: slow_down, and the interval grows by 5 seconds', async () => {
    const { body } = await startDevice(server, app.clientId);
    expect(await poll(server, app.clientId, body.device_code)).toMatchObject({
      status: 400,
      body: { error: 'authorization_pending' },
    });
    const fast = await poll(server, app.clientId, body.device_code);
    expect(fast).toMatchObject({ status: 400, body: { error: 'slow_down' } });
    // the interval is now 10 s: a poll 6 s later is still too fast, one 11 s after that is fine
    vi.setSystemTime(Date.now() + 6_000);
    expect((await poll(server, app.clientId, body.device_code)).body.error).toBe('slow_down');
    vi.setSystemTime(Date.now() + 16_000);
    expect((await poll(server, app.clientId, body.device_code)).body.error).toBe('authorization_pending');
  });

  it('expired: expired_token for the device, and the user code no longer works on the page', async () => {
    const { body } = await startDevice(server, app.clientId);
    vi.setSystemTime(Date.now() + 601_000);
    expect(await poll(server, app.clientId, body.device_code)).toMatchObject({
      status: 400,
      body: { error: 'expired_token' },
    });
    const page = await signInForCode(new Browser(server.url), body.user_code);
    expect(page.res.status).toBe(400);
    expect(page.html).toContain('This code is wrong or has expired');
  });

  it('the cleanup job deletes device authorizations a day after they expired', async () => {
    const { body } = await startDevice(server, app.clientId);
    const count = async () =>
      (await rows(server, `select count(*)::int as n from device_authorizations`))[0].n as number;
    expect(await count()).toBeGreaterThan(0);
    vi.setSystemTime(Date.now() + 600_000 + 25 * 3600_000);
    await pruneExpiredOidcRows(server.app.database.db);
    expect(await count()).toBe(0);
    expect((await poll(server, app.clientId, body.device_code)).body.error).toBe('invalid_grant');
  });
});

/** One request from a chosen loopback address, so that the server sees a source of its own. */
function send(
  base: string,
  p: string,
  opts: { from: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const url = new URL(p, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: opts.method ?? 'GET',
        headers: opts.headers,
        localAddress: opts.from,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
