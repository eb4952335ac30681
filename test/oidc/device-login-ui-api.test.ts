import { Code, ConnectError } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDCService } from '../../gen/portcullis/oidc/v2/oidc_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { defaultOrgId } from '../helpers/context';
import { addDeviceApp, poll, startDevice } from '../helpers/device-flow';
import { eventsSince, lastPosition } from '../helpers/events';
import { addMachineWithToken } from '../helpers/machines';
import { rows } from '../helpers/rows';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

const codeOf = (err: unknown) => (err instanceof ConnectError ? err.code : undefined);

describe('OIDCService device authorization RPCs for custom login UIs', () => {
  let server: TestServer;
  let app: Awaited<ReturnType<typeof addDeviceApp>>;
  let user: Awaited<ReturnType<typeof addUser>>;
  beforeAll(async () => {
    server = await startTestServer();
    app = await addDeviceApp(server);
    user = await addUser(server);
  });
  afterAll(() => server?.stop());

  const signedInSession = () =>
    server.client(SessionService).createSession({
      checks: { user: { search: { case: 'loginName', value: user.username } }, password: { password: user.password } },
    });

  it('GetDeviceAuthorizationRequest by the user code (any case, dash or not), then approve → tokens', async () => {
    const oidc = server.client(OIDCService);
    const since = await lastPosition(server);
    const { body } = await startDevice(server, app.clientId, 'openid email');
    // the device code is stored only as a hash
    const stored = await rows(server, 'select * from device_authorizations');
    expect(JSON.stringify(stored)).not.toContain(body.device_code);
    const typed = body.user_code.replace('-', '').toLowerCase();
    const { deviceAuthorizationRequest: d } = await oidc.getDeviceAuthorizationRequest({ userCode: typed });
    expect(d).toMatchObject({ clientId: app.clientId, scope: ['openid', 'email'] });
    expect(d!.appName).toMatch(/^app/);
    const expiresIn = timestampDate(d!.expirationDate!).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(590_000);
    expect(expiresIn).toBeLessThanOrEqual(600_000);

    const session = await signedInSession();
    await oidc.authorizeOrDenyDeviceAuthorization({
      userCode: body.user_code,
      decision: { case: 'session', value: { sessionId: session.sessionId, sessionToken: session.sessionToken } },
    });
    const tokens = await poll(server, app.clientId, body.device_code);
    expect(tokens.status).toBe(200);
    const idToken = JSON.parse(Buffer.from(tokens.body.id_token.split('.')[1], 'base64url').toString());
    expect(idToken).toMatchObject({
      sub: user.id,
      sid: session.sessionId,
      aud: expect.arrayContaining([app.clientId]),
    });
    const events = (await eventsSince(server, since)).filter((e) => e.aggregateId === d!.id);
    expect(events.map((e) => e.eventType)).toEqual([
      'device_authorization.added',
      'device_authorization.approved',
      'device_authorization.used',
    ]);
    // answered: no longer pending for the login UI
    const again = await oidc.getDeviceAuthorizationRequest({ userCode: body.user_code }).catch(codeOf);
    expect(again).toBe(Code.NotFound);
  });

  it('deny → access_denied for the device; a second answer finds nothing', async () => {
    const oidc = server.client(OIDCService);
    const { body } = await startDevice(server, app.clientId);
    const since = await lastPosition(server);
    await oidc.authorizeOrDenyDeviceAuthorization({ userCode: body.user_code, decision: { case: 'deny', value: {} } });
    expect((await eventsSince(server, since)).map((e) => e.eventType)).toContain('device_authorization.denied');
    expect((await poll(server, app.clientId, body.device_code)).body.error).toBe('access_denied');
    const session = await signedInSession();
    const second = await oidc
      .authorizeOrDenyDeviceAuthorization({
        userCode: body.user_code,
        decision: { case: 'session', value: { sessionId: session.sessionId, sessionToken: session.sessionToken } },
      })
      .catch(codeOf);
    expect(second).toBe(Code.NotFound);
  });

  it('a session without a checked password, or a wrong session token, does not approve', async () => {
    const oidc = server.client(OIDCService);
    const sessions = server.client(SessionService);
    const { body } = await startDevice(server, app.clientId);
    const nameOnly = await sessions.createSession({
      checks: { user: { search: { case: 'loginName', value: user.username } } },
    });
    const approve = (sessionId: string, sessionToken: string) =>
      oidc
        .authorizeOrDenyDeviceAuthorization({
          userCode: body.user_code,
          decision: { case: 'session', value: { sessionId, sessionToken } },
        })
        .catch(codeOf);
    expect(await approve(nameOnly.sessionId, nameOnly.sessionToken)).toBe(Code.InvalidArgument);
    const full = await signedInSession();
    expect(await approve(full.sessionId, 'not-the-token')).toBe(Code.Unauthenticated);
    expect(await approve('no-such-session', 'x')).toBe(Code.NotFound);
    expect((await poll(server, app.clientId, body.device_code)).body.error).toBe('authorization_pending');
    const missing = await oidc.authorizeOrDenyDeviceAuthorization({ userCode: body.user_code }).catch(codeOf);
    expect(missing).toBe(Code.InvalidArgument);
  });

  it('a caller without the login UI permission: PERMISSION_DENIED for both RPCs, nothing changes', async () => {
    const { token } = await addMachineWithToken(server, await defaultOrgId(server));
    const oidc = server.client(OIDCService, { token });
    const { body } = await startDevice(server, app.clientId);
    expect(await oidc.getDeviceAuthorizationRequest({ userCode: body.user_code }).catch(codeOf)).toBe(
      Code.PermissionDenied,
    );
    const session = await signedInSession();
    const approved = await oidc
      .authorizeOrDenyDeviceAuthorization({
        userCode: body.user_code,
        decision: { case: 'session', value: { sessionId: session.sessionId, sessionToken: session.sessionToken } },
      })
      .catch(codeOf);
    expect(approved).toBe(Code.PermissionDenied);
    expect((await poll(server, app.clientId, body.device_code)).body.error).toBe('authorization_pending');
  });
});
