import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../../helpers/browser';
import { addDeviceApp, answerInBrowser, DEVICE_GRANT, startDevice } from '../../helpers/device-flow';
import { dpopKey, proof } from '../../helpers/dpop';
import { postFormJson } from '../../helpers/forms';
import { assertion, decodePayload, JWT_BEARER } from '../../helpers/jwt-grants';
import { addMachine } from '../../helpers/machines';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addUser } from '../../helpers/users';

/** The grants not covered elsewhere bind to the proof key too: the device flow and the JWT profile. */
describe('DPoP with the device flow and the JWT profile', () => {
  let server: TestServer;
  let tokenUrl: string;
  beforeAll(async () => {
    server = await startTestServer();
    tokenUrl = `${server.url}/oauth/v2/token`;
  });
  afterAll(() => server?.stop());

  it('the device flow issues bound tokens; its refresh token needs the same key', async () => {
    const app = await addDeviceApp(server);
    const user = await addUser(server);
    const { body } = await startDevice(server, app.clientId);
    await answerInBrowser(new Browser(server.url), body.user_code, user, 'allow');
    const key = await dpopKey();
    const tokens = await postFormJson(
      server,
      '/oauth/v2/token',
      { grant_type: DEVICE_GRANT, client_id: app.clientId, device_code: body.device_code },
      { dpop: await proof(key, 'POST', tokenUrl) },
    );
    expect(tokens).toMatchObject({ status: 200, body: { token_type: 'DPoP' } });
    const refresh = (dpop?: string) =>
      postFormJson(
        server,
        '/oauth/v2/token',
        { grant_type: 'refresh_token', client_id: app.clientId, refresh_token: tokens.body.refresh_token },
        dpop ? { dpop } : {},
      );
    expect((await refresh()).body.error).toBe('invalid_grant');
    expect((await refresh(await proof(key, 'POST', tokenUrl))).body.token_type).toBe('DPoP');
  });

  it('the JWT profile binds the machine token (cnf.jkt)', async () => {
    const m = await addMachine(server, { accessTokenType: 'JWT' });
    const key = await dpopKey();
    const r = await postFormJson(
      server,
      '/oauth/v2/token',
      { grant_type: JWT_BEARER, assertion: await assertion(server, m), scope: 'openid' },
      { dpop: await proof(key, 'POST', tokenUrl) },
    );
    expect(r.status).toBe(200);
    expect(r.body.token_type).toBe('DPoP');
    expect(decodePayload(r.body.access_token).cnf).toEqual({ jkt: key.jkt });
  });
});
