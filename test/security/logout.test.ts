import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { addApiApp, addOidcApp, addProject, LOGOUT_REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { postForm } from '../helpers/forms';
import { codeFlowTokens, rp } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

describe('end session cannot be forced on another browser', () => {
  let server: TestServer;
  let config: client.Configuration;
  let api: client.Configuration;
  let clientId: string;

  beforeAll(async () => {
    server = await startTestServer();
    const project = await addProject(server);
    const app = await addOidcApp(server, project);
    clientId = app.clientId;
    config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    const a = await addApiApp(server, project);
    api = await rp(server, a.clientId, a.clientSecret, client.ClientSecretBasic(a.clientSecret));
  });
  afterAll(() => server?.stop());

  const stillSignedIn = async (token: string) => (await client.tokenIntrospection(api, token)).active;

  it('a cross-site GET (an image, a link) without id_token_hint only shows a confirmation', async () => {
    const victim = await codeFlowTokens(server, config, await addUser(server));
    const res = await victim.browser.request(
      `/oidc/v1/end_session?client_id=${clientId}&post_logout_redirect_uri=${encodeURIComponent(LOGOUT_REDIRECT)}`,
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<form method="post" action="/oidc/v1/end_session"');
    expect(await stillSignedIn(victim.tokens.access_token)).toBe(true);
  });

  it('a cross-site POST without the confirmation token does not sign out', async () => {
    const victim = await codeFlowTokens(server, config, await addUser(server));
    const res = await victim.browser.request('/oidc/v1/end_session', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ confirm: '1', csrf: 'guessed' }).toString(),
    });
    expect(res.status).toBe(200);
    expect(await stillSignedIn(victim.tokens.access_token)).toBe(true);
  });

  it("a stolen ID token, sent without the victim's browser cookie, does not end the victim's session", async () => {
    const victim = await codeFlowTokens(server, config, await addUser(server));
    const attacker = new Browser(server.url);
    await attacker.request(`/oidc/v1/end_session?id_token_hint=${victim.tokens.id_token}`);
    await postForm(server, '/oidc/v1/end_session', { id_token_hint: victim.tokens.id_token! });
    expect(await stillSignedIn(victim.tokens.access_token)).toBe(true);
    // the victim's own browser with the hint signs out at once
    await victim.browser.request(`/oidc/v1/end_session?id_token_hint=${victim.tokens.id_token}`);
    expect(await stillSignedIn(victim.tokens.access_token)).toBe(false);
  });
});
