import { Code } from '@connectrpc/connect';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDCService } from '../../gen/portcullis/oidc/v2/oidc_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { REDIRECT } from '../helpers/apps';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

describe('SessionService and OIDCService for custom login UIs', () => {
  let server: TestServer;
  let config: client.Configuration;
  let user: Awaited<ReturnType<typeof addUser>>;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
    user = await addUser(server);
  });
  afterAll(() => server?.stop());

  const start = async (extra: Record<string, string> = {}) => {
    const { url, verifier } = await pkceAuthUrl(config, {
      scope: 'openid email',
      state: 'xyz',
      login_hint: user.username,
      ...extra,
    });
    const res = await fetch(url, { redirect: 'manual' });
    const authRequestId = new URL(res.headers.get('location')!, server.url).searchParams.get('authRequest')!;
    return { authRequestId, verifier };
  };

  it('GetAuthRequest → CreateSession (user + password) → CreateCallback → code exchange', async () => {
    const oidc = server.client(OIDCService);
    const sessions = server.client(SessionService);
    const { authRequestId, verifier } = await start();
    const { authRequest } = await oidc.getAuthRequest({ authRequestId });
    expect(authRequest).toMatchObject({
      clientId: config.clientMetadata().client_id,
      redirectUri: REDIRECT,
      loginHint: user.username,
      scope: ['openid', 'email'],
    });
    const created = await sessions.createSession({
      checks: { user: { search: { case: 'loginName', value: user.username } }, password: { password: user.password } },
    });
    expect(created.sessionToken).toBeTruthy();
    const got = await sessions.getSession({ sessionId: created.sessionId, sessionToken: created.sessionToken });
    expect(got.session?.userId).toBe(user.id);
    const { callbackUrl } = await oidc.createCallback({
      authRequestId,
      callbackKind: { case: 'session', value: { sessionId: created.sessionId, sessionToken: created.sessionToken } },
    });
    const res = await fetch(callbackUrl, { redirect: 'manual' });
    const tokens = await client.authorizationCodeGrant(config, new URL(res.headers.get('location')!), {
      pkceCodeVerifier: verifier,
      expectedState: 'xyz',
    });
    expect(tokens.claims()!.sub).toBe(user.id);
    expect(tokens.claims()!.sid).toBe(created.sessionId);
    // the callback answers once
    expect((await fetch(callbackUrl, { redirect: 'manual' })).status).toBe(400);
    // DeleteSession ends it and its tokens
    await sessions.deleteSession({ sessionId: created.sessionId });
    const info = await fetch(`${server.url}/oidc/v1/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(info.status).toBe(401);
  });

  it('SetSession adds the password later; wrong password → INVALID_ARGUMENT; wrong session token refused', async () => {
    const sessions = server.client(SessionService);
    const created = await sessions.createSession({ checks: { user: { search: { case: 'userId', value: user.id } } } });
    await expect(
      sessions.setSession({
        sessionId: created.sessionId,
        sessionToken: created.sessionToken,
        checks: { password: { password: 'wrong' } },
      }),
    ).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(
      sessions.setSession({
        sessionId: created.sessionId,
        sessionToken: 'pcs_wrong',
        checks: { password: { password: user.password } },
      }),
    ).rejects.toMatchObject({
      code: Code.Unauthenticated,
    });
    await sessions.setSession({
      sessionId: created.sessionId,
      sessionToken: created.sessionToken,
      checks: { password: { password: user.password } },
    });
    const got = await sessions.getSession({ sessionId: created.sessionId });
    expect(got.session?.passwordCheckedAt).toBeDefined();
    const list = await sessions.listSessions({ userId: user.id });
    expect(list.sessions.map((s) => s.id)).toContain(created.sessionId);
  });

  it('CreateCallback with an error sends it to the client; a session without password check is refused', async () => {
    const oidc = server.client(OIDCService);
    const sessions = server.client(SessionService);
    const a = await start();
    const unchecked = await sessions.createSession({
      checks: { user: { search: { case: 'userId', value: user.id } } },
    });
    await expect(
      oidc.createCallback({
        authRequestId: a.authRequestId,
        callbackKind: {
          case: 'session',
          value: { sessionId: unchecked.sessionId, sessionToken: unchecked.sessionToken },
        },
      }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
    const { callbackUrl } = await oidc.createCallback({
      authRequestId: a.authRequestId,
      callbackKind: { case: 'error', value: { error: 'access_denied', errorDescription: 'user cancelled' } },
    });
    const loc = new URL((await fetch(callbackUrl, { redirect: 'manual' })).headers.get('location')!);
    expect(loc.searchParams.get('error')).toBe('access_denied');
    expect(loc.searchParams.get('state')).toBe('xyz');
    expect(loc.searchParams.get('iss')).toBe(server.url);
  });

  it('callers without user.write on the instance are refused; unknown auth requests are NOT_FOUND', async () => {
    await expect(server.client(OIDCService).getAuthRequest({ authRequestId: 'ar_nope' })).rejects.toMatchObject({
      code: Code.NotFound,
    });
    await expect(server.client(SessionService, { token: null }).listSessions({})).rejects.toMatchObject({
      code: Code.Unauthenticated,
    });
  });
});
