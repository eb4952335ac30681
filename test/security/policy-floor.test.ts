import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDCService } from '../../gen/portcullis/oidc/v2/oidc_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import {
  MultiFactorType,
  PasswordlessType,
  SecondFactorType,
} from '../../gen/portcullis/settings/v2/login_settings_pb';
import { SettingsService } from '../../gen/portcullis/settings/v2/settings_service_pb';
import { Browser, decodeHtml } from '../helpers/browser';
import { defaultOrgId, systemCtx } from '../helpers/context';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { addMachineWithToken } from '../helpers/machines';
import { addOrg } from '../helpers/orgs';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';
import { createAdministrator } from '../../src/domain/administrator/manage';

const NO_MFA = {
  allowUsernamePassword: true,
  passwordlessType: PasswordlessType.ALLOWED,
  forceMfa: false,
  forceMfaLocalOnly: false,
  secondFactors: [SecondFactorType.TOTP, SecondFactorType.U2F, SecondFactorType.OTP_EMAIL, SecondFactorType.OTP_SMS],
  multiFactors: [MultiFactorType.U2F_WITH_VERIFICATION],
  passwordCheckLifetimeSeconds: 0,
  secondFactorCheckLifetimeSeconds: 0,
  multiFactorCheckLifetimeSeconds: 0,
  mfaInitSkipLifetimeSeconds: 365 * 24 * 3600,
};
const FORCE_MFA = { ...NO_MFA, forceMfa: true, mfaInitSkipLifetimeSeconds: 0 };

const CLIENT = /^https:\/\/rp\.example\.com\/cb\?code=/;

/**
 * An organization owner lowers the login policy of the organization an instance administrator lives in
 * (or one whose users the instance forces MFA on), then the administrator signs in with the password.
 */
describe('an organization login policy cannot lower what the instance forces', () => {
  let server: TestServer;
  let orgId: string;
  let config: Awaited<ReturnType<typeof addRelyingParty>>;
  let owner: { userId: string; token: string };

  beforeAll(async () => {
    server = await startTestServer();
    orgId = await defaultOrgId(server);
    config = await addRelyingParty(server);
    // the instance forces MFA, without a skip period
    await server.client(SettingsService).setDefaultLoginSettings({ settings: FORCE_MFA });
    // the attacker: an owner of the organization the bootstrap administrator lives in, with its own token
    owner = await addMachineWithToken(server, orgId, { roles: ['ORG_OWNER'] });
    await server
      .client(SettingsService, { token: owner.token })
      .setOrganizationLoginSettings({ organizationId: orgId, settings: NO_MFA });
  });
  afterAll(() => server?.stop());

  /** Login name and password at the hosted login; the page after the password. */
  async function signIn(loginName: string, password: string) {
    const browser = new Browser(server.url);
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 's' });
    const page = await browser.go(url);
    const next = await browser.submit(page, '/ui/login/login', { loginName });
    return { browser, page: await browser.submit(next, '/ui/login/password', { password }) };
  }

  it('the IAM_OWNER living there is asked for a second factor and cannot skip its set-up', async () => {
    const { browser, page } = await signIn('admin', server.adminPassword);
    expect(page.url).not.toMatch(CLIENT);
    expect(page.url).toContain('/ui/login/mfa-setup');
    expect(page.html).not.toContain('/ui/login/mfa-setup/skip');
    // posting the skip form anyway (the page's own hidden fields) does not reach the client either
    const hidden = [...page.html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)];
    const skipped = await browser.go('/ui/login/mfa-setup/skip', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(hidden.map((m) => [m[1], decodeHtml(m[2])])),
    });
    expect(skipped.url).not.toMatch(CLIENT);
  });

  it('a custom login UI: CreateCallback refuses the IAM_OWNER session with the password only', async () => {
    const sessions = server.client(SessionService);
    const created = await sessions.createSession({
      checks: { user: { search: { case: 'loginName', value: 'admin' } }, password: { password: server.adminPassword } },
    });
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 's' });
    const res = await fetch(url, { redirect: 'manual' });
    const authRequestId = new URL(res.headers.get('location')!, server.url).searchParams.get('authRequest')!;
    const err = await server
      .client(OIDCService)
      .createCallback({
        authRequestId,
        callbackKind: { case: 'session', value: { sessionId: created.sessionId, sessionToken: created.sessionToken } },
      })
      .catch((e) => e);
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.message).toMatch(/second factor/);
  });

  it('a plain user of that organization: the instance forces MFA on them too', async () => {
    const user = await addUser(server, { orgId });
    const { page } = await signIn(user.username, user.password);
    expect(page.url).not.toMatch(CLIENT);
    expect(page.url).toContain('/ui/login/mfa-setup');
  });

  it('an owner of another organization is held to that organization forcing MFA, not only their own', async () => {
    await server.client(SettingsService).setDefaultLoginSettings({ settings: NO_MFA });
    try {
      const home = await addOrg(server, 'Lax Home');
      const strict = await addOrg(server, 'Strict Elsewhere');
      await server
        .client(SettingsService)
        .setOrganizationLoginSettings({ organizationId: strict.id, settings: FORCE_MFA });
      const user = await addUser(server, { orgId: home.id });
      const loginName = `${user.username}@${home.primaryDomain}`;
      // without memberships elsewhere, their own organization's policy: the password is enough
      expect((await signIn(loginName, user.password)).page.url).toMatch(CLIENT);
      await createAdministrator(systemCtx(server), {
        userId: user.id,
        resource: { orgId: strict.id },
        roles: ['ORG_OWNER'],
      });
      const { page } = await signIn(loginName, user.password);
      expect(page.url).not.toMatch(CLIENT);
      expect(page.url).toContain('/ui/login/mfa-setup');
    } finally {
      await server.client(SettingsService).setDefaultLoginSettings({ settings: FORCE_MFA });
    }
  });
});
