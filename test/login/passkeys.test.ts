import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasskeyAuthenticatorType } from '../../gen/portcullis/user/v2/passkeys_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { pruneAbandonedPasskeySignIns } from '../../src/domain/session/passkey-sign-in';
import { Browser, decodeHtml } from '../helpers/browser';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { rows } from '../helpers/rows';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';
import { type Json, SoftAuthenticator } from '../helpers/webauthn';

/** The WebAuthn options a login page renders into its form. */
const optionsOf = (html: string): Json => JSON.parse(decodeHtml(/data-options="([^"]*)"/.exec(html)![1]));

describe('hosted login: security keys as second factor, registration links, the WebAuthn script', () => {
  let server: TestServer;
  let config: client.Configuration;
  let origin: string;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
    const [{ domain }] = await rows(server, 'select domain from instances');
    origin = `http://${domain}:${server.port}`;
  });
  afterAll(() => server?.stop());

  it('after the password, a user with a security key is asked for it; a forged answer is refused', async () => {
    const user = await addUser(server);
    const users = server.client(UserService);
    const key = new SoftAuthenticator(origin, { userVerified: false });
    const reg = await users.registerPasskey({ userId: user.id, authenticator: PasskeyAuthenticatorType.SECURITY_KEY });
    await users.verifyPasskeyRegistration({
      userId: user.id,
      passkeyId: reg.passkeyId,
      publicKeyCredential: key.create(reg.publicKeyCredentialCreationOptions!),
      passkeyName: 'yubi',
    });
    const browser = new Browser(origin);
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 'sk' });
    let page = await browser.go(url.replace(server.url, origin));
    expect(page.res.headers.get('content-security-policy')).toContain("script-src 'self'");
    page = await browser.submit(page, '/ui/login/login', { loginName: user.username });
    expect(page.res.headers.get('content-security-policy')).not.toContain('script-src');
    page = await browser.submit(page, '/ui/login/password', { password: user.password });
    expect(page.url).toContain('/ui/login/webauthn?');
    expect(page.res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.html).toContain('<script src="/ui/login/webauthn.js" defer');

    // an answer from another origin: back to the page with an error, not signed in
    const forged = key.get(optionsOf(page.html), { origin: 'https://evil.example.com' });
    const again = await browser.submit(page, '/ui/login/webauthn', { credential: JSON.stringify(forged) });
    expect(again.url).toContain('/ui/login/webauthn?');
    expect(again.url).toContain('error=failed');

    const landed = await browser.submit(again, '/ui/login/webauthn', {
      credential: JSON.stringify(key.get(optionsOf(again.html))),
    });
    expect(landed.url).toMatch(/^https:\/\/rp\.example\.com/);
    const tokens = await client.authorizationCodeGrant(config, new URL(landed.url), {
      pkceCodeVerifier: verifier,
      expectedState: 'sk',
    });
    expect(tokens.claims()!.amr).toEqual(expect.arrayContaining(['pwd', 'hwk', 'mfa']));
    expect(tokens.claims()!.amr).not.toContain('user');
  });

  it('a passkey signs in on the passkey page, no login name; another browser cannot use its challenge', async () => {
    const user = await addUser(server);
    const users = server.client(UserService);
    const passkey = new SoftAuthenticator(origin);
    const reg = await users.registerPasskey({ userId: user.id });
    await users.verifyPasskeyRegistration({
      userId: user.id,
      passkeyId: reg.passkeyId,
      publicKeyCredential: passkey.create(reg.publicKeyCredentialCreationOptions!),
      passkeyName: 'phone',
    });
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 'pk' });
    const victim = new Browser(origin);
    const start = await victim.go(url.replace(server.url, origin));
    const id = new URL(start.url).searchParams.get('authRequest')!;
    const page = await victim.go(`/ui/login/passkey?authRequest=${id}`);
    const options = optionsOf(page.html);
    expect(options.allowCredentials ?? []).toEqual([]);
    // the challenge of this browser's page, answered from another browser (its own cookies): refused
    const attacker = new Browser(origin);
    const other = await attacker.go(`/ui/login/passkey?authRequest=${id}`);
    const challenge = /name="challenge" value="([^"]+)"/.exec(page.html)![1];
    const stolen = await attacker.submit(other, '/ui/login/passkey', {
      challenge,
      credential: JSON.stringify(passkey.get(options)),
    });
    expect(stolen.url).toContain('error=failed');
    // this browser, with a fresh answer
    const fresh = await victim.go(`/ui/login/passkey?authRequest=${id}`);
    const landed = await victim.submit(fresh, '/ui/login/passkey', {
      credential: JSON.stringify(passkey.get(optionsOf(fresh.html))),
    });
    expect(landed.url).toMatch(/^https:\/\/rp\.example\.com/);
    const tokens = await client.authorizationCodeGrant(config, new URL(landed.url), {
      pkceCodeVerifier: verifier,
      expectedState: 'pk',
    });
    expect(tokens.claims()!.sub).toBe(user.id);
    expect(tokens.claims()!.amr).toEqual(expect.arrayContaining(['hwk', 'user', 'mfa']));
  });

  it('passkey sign-ins never finished are forgotten after a day; finished ones and API sessions stay', async () => {
    const user = await addUser(server);
    const passkey = new SoftAuthenticator(origin);
    const users = server.client(UserService);
    const reg = await users.registerPasskey({ userId: user.id });
    await users.verifyPasskeyRegistration({
      userId: user.id,
      passkeyId: reg.passkeyId,
      publicKeyCredential: passkey.create(reg.publicKeyCredentialCreationOptions!),
      passkeyName: 'phone',
    });
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 'gc' });
    const browser = new Browser(origin);
    const id = new URL((await browser.go(url.replace(server.url, origin))).url).searchParams.get('authRequest')!;
    const abandoned = /name="challenge" value="([^"]+)"/.exec(
      (await browser.go(`/ui/login/passkey?authRequest=${id}`)).html,
    )![1];
    const page = await browser.go(`/ui/login/passkey?authRequest=${id}`);
    const finished = /name="challenge" value="([^"]+)"/.exec(page.html)![1];
    await browser.submit(page, '/ui/login/passkey', { credential: JSON.stringify(passkey.get(optionsOf(page.html))) });
    const api = await server.client(SessionService).createSession({});
    const ids = `('${abandoned}', '${finished}', '${api.sessionId}')`;
    // Time passing is the one thing no API can produce: the three sessions are made two days old.
    await server.app.database.db.execute(
      `update sessions set created_at = now() - interval '2 days' where id in ${ids}`,
    );
    expect(await pruneAbandonedPasskeySignIns(server.app.database.db)).toBeGreaterThanOrEqual(1);
    const left = (await rows(server, `select id from sessions where id in ${ids}`)).map((r) => r.id);
    expect(left.sort()).toEqual([finished, api.sessionId].sort());
  });

  it('a registration link registers a passkey on its page, once', async () => {
    const user = await addUser(server);
    const { code } = await server
      .client(UserService)
      .createPasskeyRegistrationLink({ userId: user.id, medium: { case: 'returnCode', value: {} } });
    const browser = new Browser(origin);
    const link = `/ui/login/passkey-registration?userId=${user.id}&code=${code}`;
    const page = await browser.go(link);
    expect(page.res.status).toBe(200);
    expect(page.res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const authenticator = new SoftAuthenticator(origin);
    const done = await browser.submit(page, '/ui/login/passkey-registration', {
      credential: JSON.stringify(authenticator.create(optionsOf(page.html))),
      passkeyName: 'from the link',
    });
    expect(done.res.status).toBe(200);
    expect(done.html).toContain('Your passkey is registered');
    const { passkeys } = await server.client(UserService).listPasskeys({ userId: user.id });
    expect(passkeys.map((p) => [p.name, p.state])).toEqual([['from the link', 'ready']]);
    // used: the link no longer works
    expect((await browser.go(link)).res.status).toBe(400);
    expect((await browser.go(`/ui/login/passkey-registration?userId=${user.id}&code=WRONG123`)).res.status).toBe(400);
  });

  it('serves the WebAuthn script', async () => {
    const res = await fetch(`${server.url}/ui/login/webauthn.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/javascript');
    const js = await res.text();
    expect(js).toContain('navigator.credentials');
    expect(js).toContain('data-webauthn');
  });
});
