import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/database';
import { waitFor } from '../helpers/process';
import { startTestServer, type TestServer } from '../helpers/server';
import { withServerBehindProxy } from '../helpers/tcp-proxy';

// One error renderer per transport: a domain error on an HTTP route is answered by the renderer of
// the area the route belongs to (v1 shape, OAuth JSON, the HTML error page), never by a generic 400.
describe('domain errors on HTTP routes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('a v1 route answers not_found as 404 in the v1 shape', async () => {
    const res = await server.fetch('/management/v1/users/no-such-user');
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.code).toBe(5);
    expect(body.details[0].message).toMatch(/^Errors\./);
  });

  it('a login page answers an invalid form with the HTML error page, not a JSON error', async () => {
    const form = new FormData();
    form.set('authRequest', 'x');
    form.set('loginName', 'a\0b');
    const res = await fetch(`${server.url}/ui/login/login`, { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/NUL byte/);
  });

  it('the token endpoint answers client errors as OAuth JSON with WWW-Authenticate for a Basic attempt', async () => {
    const res = await fetch(`${server.url}/oauth/v2/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from('nobody:wrong').toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect((await res.json()).error).toBe('invalid_client');
  });
});

describe.skipIf(!onPostgres)('a database outage on every transport', () => {
  it('is unavailable / 503 / temporarily_unavailable, never 500', async () => {
    await withServerBehindProxy(async (server, proxy) => {
      await proxy.cut();
      await waitFor(async () => (await fetch(`${server.url}/readyz`)).status === 503, 15_000, '/readyz 503');

      const token = await fetch(`${server.url}/oauth/v2/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${Buffer.from('someone:secret').toString('base64')}`,
        },
        body: 'grant_type=client_credentials',
      });
      expect(token.status).toBe(503);
      expect((await token.json()).error).toBe('temporarily_unavailable');

      const v1 = await server.fetch('/management/v1/users/someone');
      expect(v1.status).toBe(503);
      expect((await v1.json()).code).toBe(14);

      const rpc = await server.fetch('/portcullis.instance.v2.InstanceService/GetInstance', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(rpc.status).toBe(503);
      expect((await rpc.json()).code).toBe('unavailable');

      const authorize = await fetch(
        `${server.url}/oauth/v2/authorize?client_id=someone&redirect_uri=https://app.example/cb` +
          '&response_type=code&scope=openid',
        {
          redirect: 'manual',
        },
      );
      expect(authorize.status).toBe(503);
      expect(authorize.headers.get('content-type')).toMatch(/text\/html/);

      const login = await fetch(`${server.url}/ui/login/login?authRequest=someone`);
      expect(login.status).toBe(503);
      expect(login.headers.get('content-type')).toMatch(/text\/html/);
    });
  });
});
