import { Code, ConnectError } from '@connectrpc/connect';
import type * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OIDCService } from '../../gen/portcullis/oidc/v2/oidc_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import type { Db } from '../../src/db/client';
import type { Ctx } from '../../src/domain/context';
import { setDefaultLoginSettings } from '../../src/domain/policy/commands';
import { DEFAULT_LOGIN_POLICY, type LoginPolicy } from '../../src/domain/policy/login-policy';
import { terminateSessions } from '../../src/domain/session/sessions';
import { registerTotp, verifyTotpRegistration } from '../../src/domain/user/factors/totp';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { addDeviceApp, poll, signInForCode, startDevice } from '../helpers/device-flow';
import { addOidcUpstream } from '../helpers/idp';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { unique } from '../helpers/names';
import { rows } from '../helpers/rows';
import { startTestServer, type TestServer } from '../helpers/server';
import { totpCode } from '../helpers/totp';
import { signInAt, startUpstreamOidc, type UpstreamOidc } from '../helpers/upstream-oidc';
import { addUser } from '../helpers/users';

/*
 * The finish rule (src/domain/sign-in/finish.ts): a session that misses a factor the login policy
 * requires never answers an auth request or approves a device, whichever way it comes — the hosted
 * login (also reusing a session: the automatic pick, the account list, prompt=none), the session API's
 * CreateCallback, the device approval and a sign-in at an upstream identity provider. There is no SAML
 * sign-in into Portcullis's own login yet; when there is, it goes through the same finish.
 */
describe('a session missing a required factor cannot finish a sign-in', () => {
  let server: TestServer;
  let upstream: UpstreamOidc;
  let config: client.Configuration;
  let idpId: string;
  let device: Awaited<ReturnType<typeof addDeviceApp>>;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startUpstreamOidc({ redirectUris: [`${server.url}/idps/callback`] });
    config = await addRelyingParty(server);
    idpId = (await addOidcUpstream(server, upstream)).id;
    device = await addDeviceApp(server);
  });
  afterAll(async () => {
    await upstream?.stop();
    await server?.stop();
  });

  const policy = (change: Partial<LoginPolicy>, ctx: Ctx = systemCtx(server)) =>
    setDefaultLoginSettings(ctx, { ...DEFAULT_LOGIN_POLICY, ...change });
  const FORCE_MFA = { forceMfa: true, mfaInitSkipLifetimeSeconds: 0 };
  beforeEach(() => policy({}));

  const isCode = (url: string) => /^https:\/\/rp\.example\.com\/cb\?code=/.test(url);
  const authRequestOf = (page: { url: string }) => new URL(page.url).searchParams.get('authRequest')!;
  /** Whether the auth request was answered by a session (what the callback then turns into a code). */
  const linkedSession = async (authRequestId: string) =>
    (await rows(server, `select session_id from auth_requests where id = '${authRequestId}'`))[0]?.session_id ?? null;

  async function passwordSignIn(browser: Browser, user: { username: string; password: string }, extra = {}) {
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 'st', ...extra });
    let page = await browser.go(url);
    page = await browser.submit(page, '/ui/login/login', { loginName: user.username });
    return browser.submit(page, '/ui/login/password', { password: user.password });
  }

  async function externalSignIn(browser: Browser) {
    const sub = unique('fin');
    upstream.addAccount({
      sub,
      email: `${sub}@upstream.test`,
      email_verified: true,
      given_name: 'F',
      family_name: 'N',
    });
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
    const page = await browser.go(url);
    const pressed = await browser.submit(page, '/ui/login/idp/start', { idp: idpId });
    const params = await signInAt(pressed.url, sub);
    return browser.go(`/idps/callback?${params}`);
  }

  async function passwordSession(user: { username: string; password: string }) {
    const sessions = server.client(SessionService);
    return sessions.createSession({
      checks: { user: { search: { case: 'loginName', value: user.username } }, password: { password: user.password } },
    });
  }

  async function startAuthRequest() {
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
    const res = await fetch(url, { redirect: 'manual' });
    return new URL(res.headers.get('location')!, server.url).searchParams.get('authRequest')!;
  }

  const createCallback = (authRequestId: string, session: { sessionId: string; sessionToken: string }) =>
    server.client(OIDCService).createCallback({ authRequestId, callbackKind: { case: 'session', value: session } });

  /** A device sign-in in the browser up to the consent page (the hosted login linked the session). */
  async function deviceAtConsent(browser: Browser, user: { username: string; password: string }) {
    const { body } = await startDevice(server, device.clientId);
    const consent = await signInForCode(browser, body.user_code, user);
    return { consent, deviceCode: body.device_code as string };
  }

  it('hosted login: after the password the second factor is asked; no way around it links the session', async () => {
    await policy(FORCE_MFA);
    const user = await addUser(server);
    const browser = new Browser(server.url);
    const page = await passwordSignIn(browser, user);
    expect(page.url).toContain('/ui/login/mfa-setup');
    const id = authRequestOf(page);
    // the callback without a linked session answers nothing
    const callback = await browser.go(`/oauth/v2/authorize/callback?id=${id}`);
    expect(isCode(callback.url)).toBe(false);
    // the browser's session is not reused: not by a new request, not silently, not from the account list
    const again = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
    expect(isCode((await browser.go(again.url)).url)).toBe(false);
    const silent = await pkceAuthUrl(config, { scope: 'openid', state: 'st', prompt: 'none' });
    expect((await browser.go(silent.url)).url).toContain('error=login_required');
    const [session] = await rows(server, `select id from sessions where user_id = '${user.id}'`);
    const accounts = await browser.go(again.url.replace('state=st', 'state=st&prompt=select_account'));
    const chosen = await browser.submit(accounts, '/ui/login/accounts', { sessionId: session.id });
    expect(isCode(chosen.url)).toBe(false);
    expect(await linkedSession(id)).toBeNull();
    expect(await linkedSession(authRequestOf(chosen))).toBeNull();
  });

  it('CreateCallback: a session with the password only is refused while the policy forces MFA', async () => {
    await policy(FORCE_MFA);
    const user = await addUser(server);
    const session = await passwordSession(user);
    const id = await startAuthRequest();
    const refused = await createCallback(id, session).catch((e) => ConnectError.from(e));
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.FailedPrecondition);
    expect(await linkedSession(id)).toBeNull();
  });

  it('device approval: a policy tightened after sign-in refuses the approval; the device gets nothing', async () => {
    const user = await addUser(server);
    const browser = new Browser(server.url);
    const { consent, deviceCode } = await deviceAtConsent(browser, user);
    expect(consent.url).toContain('/ui/login/device/consent');
    await policy(FORCE_MFA);
    const answer = await browser.submit(consent, '/ui/login/device/consent', { decision: 'allow' });
    expect(answer.url).not.toContain('result=allowed');
    expect(await poll(server, device.clientId, deviceCode)).toMatchObject({
      status: 400,
      body: { error: 'authorization_pending' },
    });
  });

  it('device sign-in under forced MFA: the consent is not reached with the password alone', async () => {
    await policy(FORCE_MFA);
    const user = await addUser(server);
    const browser = new Browser(server.url);
    const { consent, deviceCode } = await deviceAtConsent(browser, user);
    expect(consent.url).toContain('/ui/login/mfa-setup');
    // a forged Allow, with the page's CSRF token and the auth request
    const csrf = /name="csrf" value="([^"]+)"/.exec(consent.html)?.[1] ?? '';
    const forced = await browser.go('/ui/login/device/consent', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ authRequest: authRequestOf(consent), csrf, decision: 'allow' }),
    });
    expect(forced.url).not.toContain('result=allowed');
    expect((await poll(server, device.clientId, deviceCode)).body.error).toBe('authorization_pending');
  });

  it('upstream sign-in under forced MFA: the second factor is asked, the request stays unanswered', async () => {
    await policy(FORCE_MFA);
    const browser = new Browser(server.url);
    const page = await externalSignIn(browser);
    expect(page.url).toContain('/ui/login/mfa-setup');
    expect(await linkedSession(authRequestOf(page))).toBeNull();
  });

  /*
   * The race: another request changes what the session needs (the policy, the user's factors, the
   * session itself) while a finish runs. The change is held open in a transaction until the finish
   * is seen waiting for it (PostgreSQL's pg_stat_activity), then committed: the finish must see it.
   * Reading the rule's inputs before the write, or from a cache, would let the weaker session through.
   */
  describe.runIf(!!process.env.DATABASE_URL)('racing a concurrent change (PostgreSQL)', () => {
    /** Runs `change` in a transaction held open while `request` runs, until the request waits for it. */
    async function whileChanging<T>(change: (ctx: Ctx) => Promise<unknown>, request: () => Promise<T>) {
      const db = server.app.database.db;
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let changed!: () => void;
      const made = new Promise<void>((r) => (changed = r));
      const holding = db.transaction(async (tx) => {
        await change({ ...systemCtx(server), db: tx as unknown as Db });
        changed();
        await released;
      });
      await made;
      const answer = request();
      const settled = answer.then(
        () => 'settled' as const,
        () => 'settled' as const,
      );
      let done = false;
      const waiting = (async () => {
        while (!done) {
          const [row] = await rows(
            server,
            'select count(*)::int as n from pg_stat_activity ' +
              "where datname = current_database() and wait_event_type = 'Lock'",
          );
          if (row.n > 0) return 'waited' as const;
          await new Promise((r) => setTimeout(r, 10));
        }
        return 'settled' as const;
      })();
      const first = await Promise.race([settled, waiting]);
      done = true;
      release();
      await holding;
      return {
        first,
        answer: await answer.then(
          (value) => ({ value }),
          (error) => ({ error }),
        ),
      };
    }

    it('CreateCallback while the policy starts forcing MFA: the link waits for the policy and is refused', async () => {
      const user = await addUser(server);
      const session = await passwordSession(user);
      const id = await startAuthRequest();
      const { first, answer } = await whileChanging(
        (ctx) => policy(FORCE_MFA, ctx),
        () => createCallback(id, session),
      );
      expect(first).toBe('waited');
      expect('error' in answer && ConnectError.from(answer.error).code).toBe(Code.FailedPrecondition);
      expect(await linkedSession(id)).toBeNull();
    });

    it('hosted password step while the user’s authenticator app becomes ready: the app is asked for', async () => {
      const user = await addUser(server);
      const ctx = systemCtx(server);
      const { secret } = await registerTotp(ctx, user.id);
      const code = await totpCode(secret);
      const browser = new Browser(server.url);
      const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
      let page = await browser.go(url);
      page = await browser.submit(page, '/ui/login/login', { loginName: user.username });
      const form = page;
      const { answer } = await whileChanging(
        (tx) => verifyTotpRegistration(tx, user.id, code),
        () => browser.submit(form, '/ui/login/password', { password: user.password }),
      );
      if ('error' in answer) throw answer.error;
      expect(answer.value.url).toContain('/ui/login/totp');
      expect(await linkedSession(authRequestOf(answer.value))).toBeNull();
    });

    it('device approval while the session is ended elsewhere: no grant for the device', async () => {
      const user = await addUser(server);
      const browser = new Browser(server.url);
      const { consent, deviceCode } = await deviceAtConsent(browser, user);
      expect(consent.url).toContain('/ui/login/device/consent');
      const [session] = await rows(server, `select id from sessions where user_id = '${user.id}'`);
      const { first, answer } = await whileChanging(
        (ctx) => terminateSessions(ctx, [session.id]),
        () => browser.submit(consent, '/ui/login/device/consent', { decision: 'allow' }),
      );
      expect(first).toBe('waited');
      if ('error' in answer) throw answer.error;
      expect(answer.value.url).not.toContain('result=allowed');
      expect((await poll(server, device.clientId, deviceCode)).body.error).toBe('authorization_pending');
    });

    it('upstream sign-in while the policy starts forcing MFA: the second factor is asked', async () => {
      const browser = new Browser(server.url);
      const { answer } = await whileChanging(
        (ctx) => policy(FORCE_MFA, ctx),
        () => externalSignIn(browser),
      );
      if ('error' in answer) throw answer.error;
      expect(answer.value.url).toContain('/ui/login/mfa-setup');
      expect(await linkedSession(authRequestOf(answer.value))).toBeNull();
    });
  });
});
