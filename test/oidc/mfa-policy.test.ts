import { Code } from '@connectrpc/connect';
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OIDCService } from '../../gen/portcullis/oidc/v2/oidc_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import {
  MultiFactorType,
  PasswordlessType,
  SecondFactorType,
} from '../../gen/portcullis/settings/v2/login_settings_pb';
import { SettingsService } from '../../gen/portcullis/settings/v2/settings_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { Browser } from '../helpers/browser';
import { defaultOrgId } from '../helpers/context';
import { eventsOf } from '../helpers/events';
import { addReadyFactor, addRecoveryCode, setFactorChecked } from '../helpers/factors';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { totpCode } from '../helpers/totp';
import { addUser } from '../helpers/users';

const DEFAULTS = {
  allowUsernamePassword: true,
  passwordlessType: PasswordlessType.ALLOWED,
  forceMfa: false,
  forceMfaLocalOnly: false,
  secondFactors: [SecondFactorType.TOTP, SecondFactorType.U2F, SecondFactorType.OTP_EMAIL, SecondFactorType.OTP_SMS],
  multiFactors: [MultiFactorType.U2F_WITH_VERIFICATION],
  passwordCheckLifetimeSeconds: 10 * 24 * 3600,
  secondFactorCheckLifetimeSeconds: 18 * 3600,
  multiFactorCheckLifetimeSeconds: 12 * 3600,
  mfaInitSkipLifetimeSeconds: 30 * 24 * 3600,
};

describe('the login policy in the code flow', () => {
  let server: TestServer;
  let config: client.Configuration;
  let settings: ReturnType<typeof server.client<typeof SettingsService>>;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
    settings = server.client(SettingsService);
  });
  afterAll(() => server?.stop());
  beforeEach(async () => {
    await settings.setDefaultLoginSettings({ settings: DEFAULTS });
  });

  const authUrl = (extra: Record<string, string> = {}) =>
    pkceAuthUrl(config, { scope: 'openid', state: 's', ...extra });
  const exchange = (landed: string, verifier: string) =>
    client.authorizationCodeGrant(config, new URL(landed), { pkceCodeVerifier: verifier, expectedState: 's' });
  /** Login name and password pages; returns the page the login goes to after the password. */
  const signIn = async (browser: Browser, url: string, user: { username: string; password: string }) => {
    let page = await browser.go(url);
    page = await browser.submit(page, '/ui/login/login', { loginName: user.username });
    return browser.submit(page, '/ui/login/password', { password: user.password });
  };
  const addReadyTotp = (userId: string, orgId: string) => addReadyFactor(server, { id: userId, orgId }, 'totp');
  const setTotpChecked = (userId: string, at: Date) =>
    setFactorChecked(server, userId, 'totp', at, ['pwd', 'otp', 'mfa']);

  it('force MFA: after the password the set-up chooser; skipping (allowed) finishes with acr 1fa', async () => {
    await settings.setDefaultLoginSettings({ settings: { ...DEFAULTS, forceMfa: true } });
    const user = await addUser(server);
    const browser = new Browser(server.url);
    const { url, verifier } = await authUrl();
    const page = await signIn(browser, url, user);
    expect(page.url).toContain('/ui/login/mfa-setup');
    for (const path of ['setup-totp', 'setup-passkey', 'setup-otp-email', 'setup-otp-sms'])
      expect(page.html).toContain(`/ui/login/${path}?authRequest=`);
    const done = await browser.submit(page, '/ui/login/mfa-setup/skip', {});
    expect(done.url).toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
    const tokens = await exchange(done.url, verifier);
    expect(tokens.claims()).toMatchObject({ acr: 'urn:portcullis:acr:1fa', amr: ['pwd'] });
    expect((await eventsOf(server, user.id, 'user.human.mfa.init.skipped')).length).toBe(1);
    // within the skip period the next sign-in is not asked again
    const next = await authUrl({ prompt: 'login' });
    expect((await signIn(browser, next.url, user)).url).toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
  });

  it('force MFA without skipping: no skip offered, and posting it anyway does not finish', async () => {
    await settings.setDefaultLoginSettings({
      settings: {
        ...DEFAULTS,
        forceMfaLocalOnly: true,
        secondFactors: [SecondFactorType.TOTP],
        mfaInitSkipLifetimeSeconds: 0,
      },
    });
    const user = await addUser(server);
    const browser = new Browser(server.url);
    const { url } = await authUrl();
    const page = await signIn(browser, url, user);
    expect(page.url).toContain('/ui/login/mfa-setup');
    expect(page.html).toContain('/ui/login/setup-totp?authRequest=');
    expect(page.html).toContain('/ui/login/setup-passkey?authRequest=');
    expect(page.html).not.toContain('setup-otp-sms');
    expect(page.html).not.toContain('/ui/login/mfa-setup/skip');
    // the double-submitted CSRF token is the cookie's value: a valid post the page did not offer
    const csrf = browser.cookies.get('pc_csrf')!;
    const authRequest = new URL(page.url).searchParams.get('authRequest')!;
    const posted = await browser.go('/ui/login/mfa-setup/skip', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ authRequest, csrf }),
    });
    expect(posted.url).toContain('/ui/login/mfa-setup');
    expect(await eventsOf(server, user.id, 'user.human.mfa.init.skipped')).toEqual([]);
    // and the auth request cannot be collected at the callback
    const callback = await browser.go(`/oauth/v2/authorize/callback?id=${encodeURIComponent(authRequest)}`);
    expect(callback.url).not.toMatch(/code=/);
  });

  it('a user with TOTP is asked for it without force MFA; with recovery codes, a chooser lists both', async () => {
    const user = await addUser(server);
    await addReadyTotp(user.id, user.orgId);
    const { url } = await authUrl();
    expect((await signIn(new Browser(server.url), url, user)).url).toContain('/ui/login/totp?authRequest=');
    await addRecoveryCode(server, user.id);
    const again = await authUrl();
    const chooser = await signIn(new Browser(server.url), again.url, user);
    expect(chooser.url).toContain('/ui/login/mfa?authRequest=');
    expect(chooser.html).toContain('/ui/login/totp?authRequest=');
    expect(chooser.html).toContain('/ui/login/recovery?authRequest=');
    // MFA forced, TOTP not allowed: the recovery code is the fallback
    await settings.setDefaultLoginSettings({
      settings: { ...DEFAULTS, forceMfa: true, secondFactors: [SecondFactorType.U2F] },
    });
    const third = await authUrl();
    expect((await signIn(new Browser(server.url), third.url, user)).url).toContain('/ui/login/recovery?authRequest=');
  });

  it('prompt=none: a second-factor check older than its lifetime is login_required; a fresh one is mfa', async () => {
    const user = await addUser(server);
    await addReadyTotp(user.id, user.orgId);
    const browser = new Browser(server.url);
    const { url } = await authUrl();
    expect((await signIn(browser, url, user)).url).toContain('/ui/login/totp');
    await setTotpChecked(user.id, new Date(Date.now() - 19 * 3600_000));
    const stale = await browser.go((await authUrl({ prompt: 'none' })).url);
    expect(new URL(stale.url).searchParams.get('error')).toBe('login_required');
    await setTotpChecked(user.id, new Date());
    const fresh = await authUrl({ prompt: 'none' });
    const page = await browser.go(fresh.url);
    const tokens = await exchange(page.url, fresh.verifier);
    expect(tokens.claims()).toMatchObject({ sub: user.id, acr: 'urn:portcullis:acr:mfa' });
    expect(tokens.claims()!.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    // a shorter lifetime in the policy makes the same check too old
    await settings.setDefaultLoginSettings({ settings: { ...DEFAULTS, secondFactorCheckLifetimeSeconds: 1 } });
    await new Promise((r) => setTimeout(r, 1100));
    const later = await browser.go((await authUrl({ prompt: 'none' })).url);
    expect(new URL(later.url).searchParams.get('error')).toBe('login_required');
  });

  it('acr_values mfa: a password-only session is not answered silently; the login asks for a factor', async () => {
    const user = await addUser(server);
    const browser = new Browser(server.url);
    const first = await authUrl();
    const page = await signIn(browser, first.url, user);
    expect(page.url).toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
    expect((await exchange(page.url, first.verifier)).claims()!.acr).toBe('urn:portcullis:acr:1fa');
    const silent = await browser.go((await authUrl({ prompt: 'none', acr_values: 'urn:portcullis:acr:mfa' })).url);
    expect(new URL(silent.url).searchParams.get('error')).toBe('login_required');
    // interactively: the set-up, without skipping (the client asked for two factors)
    const asked = await signIn(
      new Browser(server.url),
      (await authUrl({ acr_values: 'urn:portcullis:acr:mfa' })).url,
      user,
    );
    expect(asked.url).toContain('/ui/login/mfa-setup');
    expect(asked.html).not.toContain('/ui/login/mfa-setup/skip');
    // one factor acceptable too: answered
    const either = await browser.go(
      (await authUrl({ prompt: 'none', acr_values: 'urn:portcullis:acr:1fa urn:portcullis:acr:mfa' })).url,
    );
    expect(either.url).toMatch(/code=/);
  });

  it('CreateCallback refuses a password-only session while MFA is forced, an organization policy too', async () => {
    const user = await addUser(server);
    const oidc = server.client(OIDCService);
    const sessions = server.client(SessionService);
    const start = async () => {
      const { url } = await authUrl({ login_hint: user.username });
      const res = await fetch(url, { redirect: 'manual' });
      return new URL(res.headers.get('location')!, server.url).searchParams.get('authRequest')!;
    };
    const created = await sessions.createSession({
      checks: { user: { search: { case: 'userId', value: user.id } }, password: { password: user.password } },
    });
    const callback = async (authRequestId: string) =>
      oidc.createCallback({
        authRequestId,
        callbackKind: { case: 'session', value: { sessionId: created.sessionId, sessionToken: created.sessionToken } },
      });
    await settings.setDefaultLoginSettings({ settings: { ...DEFAULTS, forceMfa: true } });
    const err = await callback(await start()).catch((e) => e);
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.message).toMatch(/login policy requires a second factor/);
    // the user's organization has its own policy without force MFA: it cannot loosen what the instance forces
    const orgId = await defaultOrgId(server);
    await settings.setOrganizationLoginSettings({ organizationId: orgId, settings: DEFAULTS });
    try {
      expect((await callback(await start()).catch((e) => e)).code).toBe(Code.FailedPrecondition);
    } finally {
      await settings.resetOrganizationLoginSettings({ organizationId: orgId });
    }
    // the organization forces MFA while the instance does not: refused as well
    await settings.setDefaultLoginSettings({ settings: DEFAULTS });
    expect((await callback(await start())).callbackUrl).toContain('/oauth/v2/authorize/callback');
    await settings.setOrganizationLoginSettings({ organizationId: orgId, settings: { ...DEFAULTS, forceMfa: true } });
    try {
      expect((await callback(await start()).catch((e) => e)).code).toBe(Code.FailedPrecondition);
    } finally {
      await settings.resetOrganizationLoginSettings({ organizationId: orgId });
    }
    // and a password check older than the policy's lifetime is refused again
    await settings.setDefaultLoginSettings({ settings: { ...DEFAULTS, passwordCheckLifetimeSeconds: 1 } });
    await new Promise((r) => setTimeout(r, 1100));
    const old = await callback(await start()).catch((e) => e);
    expect(old.code).toBe(Code.FailedPrecondition);
    expect(old.message).toMatch(/first factor was checked longer ago/);
  });

  it('API only: registered TOTP + password is mfa; a check past its lifetime is login_required', async () => {
    await settings.setDefaultLoginSettings({ settings: { ...DEFAULTS, forceMfa: true } });
    const user = await addUser(server);
    const users = server.client(UserService);
    const reg = await users.registerTOTP({ userId: user.id });
    await users.verifyTOTPRegistration({ userId: user.id, code: await totpCode(reg.secret) });
    expect((await users.listAuthenticationMethodTypes({ userId: user.id })).authMethodTypes).toHaveLength(2);
    // the last second factor while the policy forces MFA cannot be removed
    await expect(users.removeTOTP({ userId: user.id })).rejects.toMatchObject({ code: Code.FailedPrecondition });

    const browser = new Browser(server.url);
    const { url, verifier } = await authUrl();
    const page = await signIn(browser, url, user);
    expect(page.url).toContain('/ui/login/totp?authRequest=');
    const done = await browser.submit(page, '/ui/login/totp', { code: await totpCode(reg.secret, 1) });
    const tokens = await exchange(done.url, verifier);
    expect(tokens.claims()).toMatchObject({ sub: user.id, acr: 'urn:portcullis:acr:mfa' });
    expect(tokens.claims()!.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    // silently again while the check is fresh
    const again = await authUrl({ prompt: 'none' });
    expect((await exchange((await browser.go(again.url)).url, again.verifier)).claims()!.acr).toBe(
      'urn:portcullis:acr:mfa',
    );
    // the policy's second-factor lifetime passes: prompt=none cannot answer
    await settings.setDefaultLoginSettings({
      settings: { ...DEFAULTS, forceMfa: true, secondFactorCheckLifetimeSeconds: 1 },
    });
    await new Promise((r) => setTimeout(r, 1100));
    const stale = await browser.go((await authUrl({ prompt: 'none' })).url);
    expect(new URL(stale.url).searchParams.get('error')).toBe('login_required');
    // with MFA no longer forced the user's own TOTP is still asked for
    await settings.setDefaultLoginSettings({ settings: { ...DEFAULTS, secondFactorCheckLifetimeSeconds: 1 } });
    const login = await signIn(new Browser(server.url), (await authUrl()).url, user);
    expect(login.url).toContain('/ui/login/totp?authRequest=');
    await users.removeTOTP({ userId: user.id });
  });

  it('GetSession shows when each factor was checked and the amr', async () => {
    const user = await addUser(server);
    const sessions = server.client(SessionService);
    const created = await sessions.createSession({
      checks: { user: { search: { case: 'userId', value: user.id } }, password: { password: user.password } },
    });
    const { session } = await sessions.getSession({ sessionId: created.sessionId });
    expect(session?.amr).toEqual(['pwd']);
    expect(session?.factors?.passwordCheckedAt).toBeDefined();
    expect(session?.factors?.totpCheckedAt).toBeUndefined();
  });

  it('force MFA: from the set-up chooser to setup-totp; the first code finishes the sign-in with acr mfa', async () => {
    await settings.setDefaultLoginSettings({
      settings: { ...DEFAULTS, forceMfa: true, mfaInitSkipLifetimeSeconds: 0 },
    });
    const user = await addUser(server);
    const browser = new Browser(server.url);
    const { url, verifier } = await authUrl();
    const chooser = await signIn(browser, url, user);
    const link = /href="(\/ui\/login\/setup-totp\?authRequest=[^"]+)"/.exec(chooser.html)![1];
    const setup = await browser.go(link.replace(/&amp;/g, '&'));
    const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(setup.html)![1];
    const done = await browser.submit(setup, '/ui/login/setup-totp', { code: await totpCode(secret) });
    const tokens = await exchange(done.url, verifier);
    expect(tokens.claims()).toMatchObject({ sub: user.id, acr: 'urn:portcullis:acr:mfa' });
    await settings.setDefaultLoginSettings({ settings: DEFAULTS });
    await server.client(UserService).removeTOTP({ userId: user.id });
  });
});
