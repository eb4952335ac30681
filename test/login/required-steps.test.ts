import { Code } from '@connectrpc/connect';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDCService } from '../../gen/portcullis/oidc/v2/oidc_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { createUser } from '../../src/domain/user/create-user';
import { startTestServer, type TestServer } from '../helpers/server';
import { REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { defaultOrgId, systemCtx } from '../helpers/context';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { mailedCodes } from '../helpers/mail';
import { rows } from '../helpers/rows';

const alertOf = (html: string) => /role="alert"[^>]*>([^<]+)</.exec(html)?.[1];

describe('steps after the password: email verification at registration, required password change', () => {
  let server: TestServer;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
  });
  afterAll(() => server?.stop());

  const authUrl = (extra: Record<string, string> = {}) =>
    pkceAuthUrl(config, { scope: 'openid email', state: 's', ...extra });
  const exchange = (landed: string, verifier: string) =>
    client.authorizationCodeGrant(config, new URL(landed), { pkceCodeVerifier: verifier, expectedState: 's' });
  const codesSentTo = (email: string) => mailedCodes(server, email);

  it('sign-up: emailed code verifies the address (resent code replaces it), then client gets its code', async () => {
    const browser = new Browser(server.url);
    const reg = await authUrl({ prompt: 'create' });
    const form = await browser.go(reg.url);
    const email = `verify${Date.now()}@example.com`;
    const verify = await browser.submit(form, '/ui/login/register', {
      givenName: 'Vera',
      familyName: 'Ify',
      email,
      password: 'Verify-Passw0rd!',
      passwordConfirm: 'Verify-Passw0rd!',
    });
    expect(verify.url).toContain('/ui/login/verify-email');
    expect(verify.html).toContain(email);
    expect(verify.html).toContain('name="code"');
    const [first] = await codesSentTo(email);

    // the auth request id alone (another browser) does not reach the step
    const stranger = await new Browser(server.url).go(verify.url);
    expect(stranger.url).toContain('/ui/login/login');

    const wrong = await browser.submit(verify, '/ui/login/verify-email', { code: 'WRONGCDE' });
    expect(wrong.url).toContain('/ui/login/verify-email');
    expect(alertOf(wrong.html)).toBe('The code is wrong or has expired.');

    const resent = await browser.submit(wrong, '/ui/login/verify-email/resend', {});
    expect(resent.html).toContain('We sent you a new code.');
    const codes = await codesSentTo(email);
    expect(codes).toHaveLength(2);
    const stale = await browser.submit(resent, '/ui/login/verify-email', { code: first });
    expect(alertOf(stale.html)).toBe('The code is wrong or has expired.');
    const [user] = await rows(server, `select email_verified from users where email = '${email}'`);
    expect(user.email_verified).toBe(false);

    const done = await browser.submit(stale, '/ui/login/verify-email', { code: codes[1].toLowerCase() });
    expect(done.url.startsWith(REDIRECT)).toBe(true);
    const tokens = await exchange(done.url, reg.verifier);
    const info = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(info).toMatchObject({ email, email_verified: true });
  });

  it('password change required: the new password (policy checked) is set before the request completes', async () => {
    const username = `change${Date.now()}`;
    const { id } = await createUser(systemCtx(server), {
      orgId: await defaultOrgId(server),
      username,
      human: {
        profile: { givenName: 'Chan', familyName: 'Ge' },
        email: { email: `${username}@example.com`, verification: { verified: true } },
        password: { password: 'Initial-Passw0rd!', changeRequired: true },
      },
    });
    const browser = new Browser(server.url);
    const first = await authUrl();
    let page = await browser.go(first.url);
    page = await browser.submit(page, '/ui/login/login', { loginName: username });
    page = await browser.submit(page, '/ui/login/password', { password: 'Initial-Passw0rd!' });
    expect(page.url).toContain('/ui/login/password/change');
    expect(page.html).toContain('name="passwordConfirm"');

    // meanwhile the browser's session answers no other request
    const silent = await browser.request((await authUrl({ prompt: 'none' })).url);
    expect(new URL(silent.headers.get('location')!).searchParams.get('error')).toBe('login_required');

    const differ = await browser.submit(page, '/ui/login/password/change', {
      password: 'Changed-Passw0rd!',
      passwordConfirm: 'other',
    });
    expect(differ.res.status).toBe(400);
    expect(alertOf(differ.html)).toBe('The passwords do not match.');
    const weak = await browser.submit(differ, '/ui/login/password/change', {
      password: 'short',
      passwordConfirm: 'short',
    });
    expect(weak.res.status).toBe(400);
    expect(alertOf(weak.html)).toMatch(/at least 8 characters/);

    const done = await browser.submit(weak, '/ui/login/password/change', {
      password: 'Changed-Passw0rd!',
      passwordConfirm: 'Changed-Passw0rd!',
    });
    expect(done.url.startsWith(REDIRECT)).toBe(true);
    expect((await exchange(done.url, first.verifier)).claims()!.sub).toBe(id);
    const [user] = await rows(server, `select password_change_required from users where id = '${id}'`);
    expect(user.password_change_required).toBe(false);
    const events = await rows(server, `select event_type from events where aggregate_id = '${id}'`);
    expect(events.map((e) => e.event_type)).toContain('user.human.password.changed');

    // the new password signs in directly; the old one no longer does
    const again = await authUrl({ prompt: 'login' });
    await exchange(await new Browser(server.url).login(again.url, username, 'Changed-Passw0rd!'), again.verifier);
    await expect(new Browser(server.url).login((await authUrl()).url, username, 'Initial-Passw0rd!')).rejects.toThrow(
      /error=invalid/,
    );
  });

  it('custom login UIs: CreateCallback refuses a session whose user must change the password', async () => {
    const username = `apichange${Date.now()}`;
    await createUser(systemCtx(server), {
      orgId: await defaultOrgId(server),
      username,
      human: {
        profile: { givenName: 'Api', familyName: 'Change' },
        email: { email: `${username}@example.com`, verification: { verified: true } },
        password: { password: 'Initial-Passw0rd!', changeRequired: true },
      },
    });
    const res = await fetch((await authUrl()).url, { redirect: 'manual' });
    const authRequestId = new URL(res.headers.get('location')!, server.url).searchParams.get('authRequest')!;
    const session = await server.client(SessionService).createSession({
      checks: { user: { search: { case: 'loginName', value: username } }, password: { password: 'Initial-Passw0rd!' } },
    });
    await expect(
      server.client(OIDCService).createCallback({
        authRequestId,
        callbackKind: { case: 'session', value: { sessionId: session.sessionId, sessionToken: session.sessionToken } },
      }),
    ).rejects.toMatchObject({ code: Code.FailedPrecondition });
  });
});
