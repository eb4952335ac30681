import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MultiFactorType,
  PasswordlessType,
  SecondFactorType,
} from '../../gen/portcullis/settings/v2/login_settings_pb';
import { SettingsService } from '../../gen/portcullis/settings/v2/settings_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { Browser } from '../helpers/browser';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { addOrg } from '../helpers/orgs';
import { rows } from '../helpers/rows';
import { startTestServer, type TestServer } from '../helpers/server';
import { totpCode } from '../helpers/totp';
import { addUser } from '../helpers/users';

const alertOf = (html: string) => /role="alert"[^>]*>([^<]+)</.exec(html)?.[1];

describe('hosted login: email codes and locking by wrong codes, posting the forms as a browser does', () => {
  let server: TestServer;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
  });
  afterAll(() => server?.stop());

  async function password(user: { username: string; password: string }, extra: Record<string, string> = {}) {
    const browser = new Browser(server.url);
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 's', ...extra });
    let page = await browser.go(url);
    page = await browser.submit(page, '/ui/login/login', { loginName: user.username });
    page = await browser.submit(page, '/ui/login/password', { password: user.password });
    return { browser, page, verifier };
  }

  const emailedCodes = async (userId: string) =>
    (
      await rows(
        server,
        `select body from notifications where user_id = '${userId}' and kind = 'OTP_EMAIL' order by created_at`,
      )
    ).map((r) => /sign-in code is: (\d{6})/.exec(r.body)![1]);

  it('the email code page sends a code when it opens; a wrong code is refused, the right one signs in', async () => {
    const user = await addUser(server);
    await server.client(UserService).addOTPEmail({ userId: user.id });
    const { browser, page, verifier } = await password(user);
    expect(page.url).toContain('/ui/login/otp-email');
    expect(page.html).toContain('name="code"');
    const [code] = await emailedCodes(user.id);
    const wrong = await browser.submit(page, '/ui/login/otp-email', { code: code === '123456' ? '654321' : '123456' });
    expect(alertOf(wrong.html)).toBe('The code is wrong or has expired.');
    // opening the page again sends no second code while the first is valid
    expect(await emailedCodes(user.id)).toHaveLength(1);
    const soon = await browser.submit(wrong, '/ui/login/otp-email/resend', {});
    expect(alertOf(soon.html)).toBe('Please wait half a minute before asking for a new code.');
    const done = await browser.submit(soon, '/ui/login/otp-email', { code });
    expect(done.url).toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
    const tokens = await client.authorizationCodeGrant(config, new URL(done.url), {
      pkceCodeVerifier: verifier,
      expectedState: 's',
    });
    expect(tokens.claims()!.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
  });

  it('German pages; the auth request id alone does not reach a factor page', async () => {
    const user = await addUser(server);
    await server.client(UserService).addOTPEmail({ userId: user.id });
    const { page } = await password(user, { ui_locales: 'de' });
    expect(page.html).toContain('Code aus der E-Mail eingeben');
    const stranger = await new Browser(server.url).go(page.url);
    expect(stranger.url).toContain('/ui/login/login');
  });

  it('wrong codes lock the account at the limit; then the page says locked for the right code too', async () => {
    const user = await addUser(server);
    const users = server.client(UserService);
    const reg = await users.registerTOTP({ userId: user.id });
    await users.verifyTOTPRegistration({ userId: user.id, code: await totpCode(reg.secret) });
    const { browser, page } = await password(user);
    expect(page.url).toContain('/ui/login/totp');
    let current = page;
    const alerts: (string | undefined)[] = [];
    for (let i = 0; i < 5; i++) {
      current = await browser.submit(current, '/ui/login/totp', { code: '000000' });
      alerts.push(alertOf(current.html));
    }
    expect(alerts.slice(0, 4)).toEqual(Array(4).fill('The code is wrong or has expired.'));
    expect(alerts[4]).toBe('This account is locked. Please contact your administrator.');
    const right = await browser.submit(current, '/ui/login/totp', { code: await totpCode(reg.secret, 1) });
    expect(alertOf(right.html)).toBe('This account is locked. Please contact your administrator.');
    expect(right.url).toContain('/ui/login/totp');
  });

  it('forced MFA: the set-up chooser leads to email codes, which are turned on and then asked for', async () => {
    const org = await addOrg(server, 'Forced MFA Codes');
    await server.client(SettingsService).setOrganizationLoginSettings({
      organizationId: org.id,
      settings: {
        allowUsernamePassword: true,
        passwordlessType: PasswordlessType.ALLOWED,
        forceMfa: true,
        secondFactors: [SecondFactorType.TOTP, SecondFactorType.OTP_EMAIL, SecondFactorType.OTP_SMS],
        multiFactors: [MultiFactorType.U2F_WITH_VERIFICATION],
        passwordCheckLifetimeSeconds: 3600,
        secondFactorCheckLifetimeSeconds: 1800,
        multiFactorCheckLifetimeSeconds: 900,
        mfaInitSkipLifetimeSeconds: 0,
      },
    });
    const user = await addUser(server, { orgId: org.id });
    const { browser, page, verifier } = await password({ ...user, username: `${user.username}@${org.primaryDomain}` });
    expect(page.url).toContain('/ui/login/mfa-setup');
    const setup = await browser.go(
      `/ui/login/setup-otp-email?authRequest=${new URL(page.url).searchParams.get('authRequest')}`,
    );
    expect(setup.html).toContain(`${user.username}@example.com`);
    // without a verified phone the SMS set-up says so and offers no button
    const sms = await browser.go(setup.url.replace('setup-otp-email', 'setup-otp-sms'));
    expect(sms.html).toContain('This needs a verified address.');
    expect(sms.html).not.toContain('action="/ui/login/setup-otp-sms"');
    const asked = await browser.submit(setup, '/ui/login/setup-otp-email', {});
    expect(asked.url).toContain('/ui/login/otp-email');
    const [code] = await emailedCodes(user.id);
    const done = await browser.submit(asked, '/ui/login/otp-email', { code });
    const tokens = await client.authorizationCodeGrant(config, new URL(done.url), {
      pkceCodeVerifier: verifier,
      expectedState: 's',
    });
    expect(tokens.claims()!.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
  });
});
