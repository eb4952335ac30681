import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { Browser } from '../helpers/browser';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { addUser } from '../helpers/users';
import { mailedCodes } from '../helpers/mail';
import { rows } from '../helpers/rows';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('prompt values, max_age, hints and sessions', () => {
  let server: TestServer;
  let config: client.Configuration;
  let alice: Awaited<ReturnType<typeof addUser>>;
  let bob: Awaited<ReturnType<typeof addUser>>;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
    alice = await addUser(server);
    bob = await addUser(server);
  });
  afterAll(() => server?.stop());

  const authUrl = (extra: Record<string, string> = {}) =>
    pkceAuthUrl(config, { scope: 'openid', state: 's', ...extra });
  const exchange = async (landed: string, verifier: string, maxAge?: number) =>
    client.authorizationCodeGrant(config, new URL(landed), { pkceCodeVerifier: verifier, expectedState: 's', maxAge });

  it('prompt=none with a session: silent success with the same sub and auth_time', async () => {
    const browser = new Browser(server.url);
    const first = await authUrl();
    const t1 = await exchange(await browser.login(first.url, alice.username, alice.password), first.verifier);
    const again = await authUrl({ prompt: 'none' });
    const page = await browser.go(again.url);
    const t2 = await exchange(page.url, again.verifier);
    expect(t2.claims()!.sub).toBe(alice.id);
    expect(t2.claims()!.auth_time).toBe(t1.claims()!.auth_time);
    expect(t2.claims()!.sid).toBe(t1.claims()!.sid);
  });

  it('prompt=login forces re-authentication with a newer auth_time; the cookie changes at login', async () => {
    const browser = new Browser(server.url);
    const first = await authUrl();
    const t1 = await exchange(await browser.login(first.url, alice.username, alice.password), first.verifier);
    const cookie1 = browser.cookies.get('pc_ua');
    await sleep(1100);
    const again = await authUrl({ prompt: 'login' });
    const page = await browser.go(again.url);
    expect(page.url).toContain('/ui/login/login');
    const t2 = await exchange(await browser.login(again.url, alice.username, alice.password), again.verifier);
    expect(t2.claims()!.auth_time).toBeGreaterThan(t1.claims()!.auth_time as number);
    expect(browser.cookies.get('pc_ua')).not.toBe(cookie1);
  });

  it('max_age: exceeded forces login (prompt=none → login_required); auth_time is in the ID token', async () => {
    const browser = new Browser(server.url);
    const first = await authUrl({ max_age: '600' });
    const t1 = await exchange(await browser.login(first.url, alice.username, alice.password), first.verifier, 600);
    expect(t1.claims()!.auth_time).toBeTypeOf('number');
    await sleep(1100);
    const none = await browser.request((await authUrl({ prompt: 'none', max_age: '0' })).url);
    expect(new URL(none.headers.get('location')!).searchParams.get('error')).toBe('login_required');
    const interactive = await browser.go((await authUrl({ max_age: '0' })).url);
    expect(interactive.url).toContain('/ui/login/login');
  });

  it('id_token_hint with prompt=none selects that subject, or fails with login_required', async () => {
    const browser = new Browser(server.url);
    const a = await authUrl();
    const ta = await exchange(await browser.login(a.url, alice.username, alice.password), a.verifier);
    const b = await authUrl({ prompt: 'login' });
    const tb = await exchange(await browser.login(b.url, bob.username, bob.password), b.verifier);
    // two sessions: prompt=none without hint cannot choose
    const ambiguous = await browser.request((await authUrl({ prompt: 'none' })).url);
    expect(new URL(ambiguous.headers.get('location')!).searchParams.get('error')).toBe('interaction_required');
    const withHint = await authUrl({ prompt: 'none', id_token_hint: ta.id_token! });
    const t = await exchange((await browser.go(withHint.url)).url, withHint.verifier);
    expect(t.claims()!.sub).toBe(alice.id);
    // a fresh browser has no session for the hint's subject
    const other = await new Browser(server.url).request(
      (await authUrl({ prompt: 'none', id_token_hint: tb.id_token! })).url,
    );
    expect(new URL(other.headers.get('location')!).searchParams.get('error')).toBe('login_required');
  });

  it('select_account lists the browser sessions; choosing one answers without a password', async () => {
    const browser = new Browser(server.url);
    const a = await authUrl();
    await browser.login(a.url, alice.username, alice.password);
    const b = await authUrl({ prompt: 'login' });
    await browser.login(b.url, bob.username, bob.password);
    const sel = await authUrl({ prompt: 'select_account', login_hint: bob.username });
    const page = await browser.go(sel.url);
    expect(page.url).toContain('/ui/login/accounts');
    expect(page.html).toContain(alice.username);
    expect(page.html).toContain(bob.username);
    const sessionId = new RegExp(`name="sessionId" value="([^"]+)"[^>]*aria-label="[^"]*${bob.username}`).exec(
      page.html,
    )![1];
    const done = await browser.submit(page, '/ui/login/accounts', { sessionId });
    const t = await exchange(done.url, sel.verifier);
    expect(t.claims()!.sub).toBe(bob.id);
    // without prompt, several sessions also lead to the choice
    expect((await browser.go((await authUrl()).url)).url).toContain('/ui/login/accounts');
  });

  it('login_hint prefills the login name', async () => {
    const page = await new Browser(server.url).go((await authUrl({ login_hint: 'someone@example.com' })).url);
    expect(page.html).toContain('value="someone@example.com"');
  });

  it('ui_locales picks German; Accept-Language decides when ui_locales does not match', async () => {
    const de = await new Browser(server.url).go((await authUrl({ ui_locales: 'de-CH en' })).url);
    expect(de.html).toContain('<html lang="de">');
    expect(de.html).toContain('Anmelden');
    const viaHeader = await new Browser(server.url, { 'accept-language': 'fr;q=0.9, de;q=0.8' }).go(
      (await authUrl({ ui_locales: 'fr' })).url,
    );
    expect(viaHeader.html).toContain('<html lang="de">');
    const en = await new Browser(server.url).go((await authUrl()).url);
    expect(en.html).toContain('<html lang="en">');
  });

  it('prompt=create shows the registration; the new user is signed in', async () => {
    const browser = new Browser(server.url);
    const reg = await authUrl({ prompt: 'create' });
    const page = await browser.go(reg.url);
    expect(page.url).toContain('/ui/login/register');
    const email = `new${Date.now()}@example.com`;
    const done = await browser.submit(page, '/ui/login/register', {
      givenName: 'Grace',
      familyName: 'Hopper',
      email,
      username: '',
      password: 'Another-Passw0rd!',
      passwordConfirm: 'Another-Passw0rd!',
    });
    // the email verification step comes first; its code arrives through the outbox
    expect(done.url).toContain('/ui/login/verify-email');
    const [code] = await mailedCodes(server, email);
    const verified = await browser.submit(done, '/ui/login/verify-email', { code });
    const t = await exchange(verified.url, reg.verifier);
    const info = await client.fetchUserInfo(config, t.access_token, t.claims()!.sub);
    expect(info.sub).toBe(t.claims()!.sub);
    // the new user can log in with the password
    const again = await authUrl({ prompt: 'login' });
    await exchange(await new Browser(server.url).login(again.url, email, 'Another-Passw0rd!'), again.verifier);
  });

  it('registration with differing passwords shows the form again', async () => {
    const browser = new Browser(server.url);
    const page = await browser.go((await authUrl({ prompt: 'create' })).url);
    const res = await browser.submit(page, '/ui/login/register', {
      givenName: 'A',
      familyName: 'B',
      email: 'x@example.com',
      password: 'Aa-1aaaaaa',
      passwordConfirm: 'other',
    });
    expect(res.res.status).toBe(400);
    expect(res.html).toContain('role="alert"');
  });

  it('login UI: security headers, CSRF on all forms, POST → 303, one error for unknown user/bad password', async () => {
    const browser = new Browser(server.url);
    const { url } = await authUrl();
    const page = await browser.go(url);
    expect(page.res.headers.get('x-frame-options')).toBe('DENY');
    expect(page.res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.html).toMatch(/name="csrf" value="[\w-]{40,}"/);
    // a POST without the CSRF token is refused
    const authRequest = /name="authRequest" value="([^"]+)"/.exec(page.html)![1];
    const forged = await browser.request('/ui/login/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ authRequest, loginName: alice.username, csrf: 'forged' }),
    });
    expect(forged.status).toBe(303);
    expect(forged.headers.get('location')).toContain('error=csrf');
    const messages: string[] = [];
    for (const name of [alice.username, 'no-such-user']) {
      const b = new Browser(server.url);
      const p1 = await b.go((await authUrl()).url);
      const p2 = await b.submit(p1, '/ui/login/login', { loginName: name });
      expect(p2.url).toContain('/ui/login/password');
      const raw = await b.request('/ui/login/password', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          authRequest: /name="authRequest" value="([^"]+)"/.exec(p2.html)![1],
          csrf: b.cookies.get('pc_csrf')!,
          password: 'wrong-password',
        }),
      });
      expect(raw.status).toBe(303);
      const p3 = await b.go(raw.headers.get('location')!);
      messages.push(/role="alert"[^>]*>([^<]+)</.exec(p3.html)![1]);
    }
    expect(messages[0]).toBe(messages[1]);
  });

  it('lockout: after the instance limit of failed checks the user is locked; right password fails too', async () => {
    const victim = await addUser(server);
    for (let i = 0; i < 10; i++) {
      const b = new Browser(server.url);
      const p1 = await b.go((await authUrl()).url);
      const p2 = await b.submit(p1, '/ui/login/login', { loginName: victim.username });
      await b.submit(p2, '/ui/login/password', { password: `wrong-${i}` });
    }
    const b = new Browser(server.url);
    const p1 = await b.go((await authUrl()).url);
    const p2 = await b.submit(p1, '/ui/login/login', { loginName: victim.username });
    const p3 = await b.submit(p2, '/ui/login/password', { password: victim.password });
    expect(p3.url).toContain('error=locked');
    const types = (
      await rows(server, `select event_type from events where aggregate_id = '${victim.id}' order by position`)
    ).map((r) => r.event_type);
    expect(types.filter((t: string) => t === 'user.human.password.check.failed')).toHaveLength(10);
    expect(types).toContain('user.locked');
  });

  it('session cookie is HttpOnly and SameSite=Lax', async () => {
    const b = new Browser(server.url);
    const { url } = await authUrl();
    const p1 = await b.go(url);
    const p2 = await b.submit(p1, '/ui/login/login', { loginName: alice.username });
    const res = await b.request('/ui/login/password', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        authRequest: /name="authRequest" value="([^"]+)"/.exec(p2.html)![1],
        csrf: b.cookies.get('pc_csrf')!,
        password: alice.password,
      }),
    });
    expect(res.status).toBe(303);
    const sc = res.headers.getSetCookie().find((c) => c.startsWith('pc_ua='))!;
    expect(sc).toMatch(/HttpOnly/i);
    expect(sc).toMatch(/SameSite=Lax/i);
  });
});
