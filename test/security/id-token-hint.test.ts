import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeProtectedHeader } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addApiApp, addOidcApp, addProject, LOGOUT_REDIRECT, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { codeFlowTokens, getCode, rp } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** A relying party's back-channel logout endpoint: keeps every logout token it is sent. */
async function startLogoutReceiver() {
  const tokens: string[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      const token = new URLSearchParams(raw).get('logout_token');
      if (token) tokens.push(token);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bc`,
    tokens,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * The same keys sign ID tokens, JWT access tokens and logout tokens. A resource server holds the
 * user's JWT access tokens and a relying party receives logout tokens: neither may pass one off as an
 * ID token at end_session, where a valid id_token_hint skips the user's confirmation (a link on any
 * site would then sign the user out and redirect to the client's post-logout URI).
 */
describe('id_token_hint accepts only ID tokens', () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startLogoutReceiver>>;
  let project: string;
  let api: client.Configuration;

  beforeAll(async () => {
    server = await startTestServer();
    receiver = await startLogoutReceiver();
    project = await addProject(server);
    const a = await addApiApp(server, project);
    api = await rp(server, a.clientId, a.clientSecret, client.ClientSecretBasic(a.clientSecret));
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.stop();
  });

  const relyingParty = async (oidc: Parameters<typeof addOidcApp>[2]) => {
    const app = await addOidcApp(server, project, oidc);
    return rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
  };
  const stillSignedIn = async (token: string) => (await client.tokenIntrospection(api, token)).active;
  const endSessionUrl = (hint: string) =>
    `/oidc/v1/end_session?id_token_hint=${hint}&post_logout_redirect_uri=${encodeURIComponent(LOGOUT_REDIRECT)}`;
  const isConfirmation = async (res: Response) =>
    res.status === 200 && (await res.text()).includes('<form method="post" action="/oidc/v1/end_session"');

  it("a JWT access token as hint only shows the confirmation: the user's session goes on", async () => {
    const config = await relyingParty({ accessTokenType: 'JWT' });
    const victim = await codeFlowTokens(server, config, await addUser(server));
    const accessToken = victim.tokens.access_token;
    expect(decodeProtectedHeader(accessToken).typ).toBe('at+jwt');

    const res = await victim.browser.request(endSessionUrl(accessToken));
    expect(res.headers.get('location')).toBeNull();
    expect(await isConfirmation(res)).toBe(true);
    expect(await stillSignedIn(accessToken)).toBe(true);
    // at authorize it is no hint either
    const authorize = await victim.browser.request(
      client
        .buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', id_token_hint: accessToken })
        .toString(),
    );
    expect(authorize.headers.get('location')).toContain('error=invalid_request');
  });

  it("a logout token the relying party was sent, as hint, does not end the user's other session", async () => {
    const config = await relyingParty({ backchannelLogoutUri: receiver.url });
    const user = await addUser(server);
    const first = await codeFlowTokens(server, config, user);
    const second = await codeFlowTokens(server, config, user);
    // the user signs out of the first browser: the relying party receives a logout token about the user
    await first.browser.request(`/oidc/v1/end_session?id_token_hint=${first.tokens.id_token}`);
    await vi.waitFor(() => expect(receiver.tokens.length).toBeGreaterThan(0), { timeout: 5000 });
    const logoutToken = receiver.tokens[0];
    expect(decodeProtectedHeader(logoutToken).typ).toBe('logout+jwt');

    const res = await second.browser.request(endSessionUrl(logoutToken));
    expect(res.headers.get('location')).toBeNull();
    expect(await isConfirmation(res)).toBe(true);
    expect(await stillSignedIn(second.tokens.access_token)).toBe(true);
  });

  it('a real ID token still signs out at once and redirects to the post-logout URI', async () => {
    const config = await relyingParty({ accessTokenType: 'JWT' });
    const r = await getCode(server, config, await addUser(server), { scope: 'openid' }, new Browser(server.url));
    const tokens = await client.authorizationCodeGrant(config, r.landed, {
      pkceCodeVerifier: r.verifier,
      expectedState: r.state,
    });
    const res = await r.browser.request(`${endSessionUrl(tokens.id_token!)}&state=s1`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${LOGOUT_REDIRECT}?state=s1`);
    expect(await stillSignedIn(tokens.access_token)).toBe(false);
  });
});
