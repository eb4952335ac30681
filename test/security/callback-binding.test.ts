import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDCService } from '../../gen/portcullis/oidc/v2/oidc_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { addRelyingParty } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

const hidden = (html: string) =>
  Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
  );

describe('the authorization callback completes only where the sign-in happened', () => {
  let server: TestServer;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server, { basicAuth: true });
  });
  afterAll(() => server?.stop());

  const authUrl = () =>
    client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', state: 's' }).toString();

  it('hosted login: another browser holding the request id gets no code', async () => {
    const user = await addUser(server);
    const victim = new Browser(server.url);
    let page = await victim.go(authUrl());
    page = await victim.submit(page, '/ui/login/login', { loginName: user.username });
    const res = await victim.request('/ui/login/password', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...hidden(page.html), password: user.password }).toString(),
    });
    const callback = res.headers.get('location')!;
    expect(callback).toContain('/oauth/v2/authorize/callback');
    const stolen = await new Browser(server.url).request(callback);
    expect(stolen.status).toBe(400);
    expect(stolen.headers.get('location')).toBeNull();
    const own = await victim.request(callback);
    expect(new URL(own.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  });

  it('custom login UI: the callback needs the key of the URL CreateCallback returned', async () => {
    const user = await addUser(server);
    const res = await fetch(authUrl(), { redirect: 'manual' });
    const authRequestId = new URL(res.headers.get('location')!, server.url).searchParams.get('authRequest')!;
    const created = await server.client(SessionService).createSession({
      checks: { user: { search: { case: 'userId', value: user.id } }, password: { password: user.password } },
    });
    const { callbackUrl } = await server.client(OIDCService).createCallback({
      authRequestId,
      callbackKind: { case: 'session', value: { sessionId: created.sessionId, sessionToken: created.sessionToken } },
    });
    const withoutKey = `${server.url}/oauth/v2/authorize/callback?id=${encodeURIComponent(authRequestId)}`;
    expect((await fetch(withoutKey, { redirect: 'manual' })).status).toBe(400);
    expect((await fetch(`${withoutKey}&key=guess`, { redirect: 'manual' })).status).toBe(400);
    const ok = await fetch(callbackUrl, { redirect: 'manual' });
    expect(new URL(ok.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  });
});
