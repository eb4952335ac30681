import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { addOidcApp, addProject } from '../helpers/apps';

describe('/authorize enforces the redirect URI rules it reports at registration', () => {
  let server: TestServer;
  let project: string;
  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
  });
  afterAll(() => server?.stop());

  const authorize = (clientId: string, redirectUri: string) =>
    server.fetch(
      `/oauth/v2/authorize?client_id=${encodeURIComponent(clientId)}` +
        `&redirect_uri=${encodeURIComponent(redirectUri)}&response_type=code&scope=openid&state=s`,
      {
        redirect: 'manual',
        token: null,
      },
    );

  it('refuses WEB http on a public host without dev mode, and script/custom schemes for non-native apps', async () => {
    const bad = [
      'http://rp.example.com/cb',
      'javascript:alert(1)//',
      'data:text/html,hi',
      'file:///etc/passwd',
      'vbscript:msgbox',
      'myapp://cb',
    ];
    const app = await addOidcApp(server, project, {
      redirectUris: bad,
      applicationType: 'WEB',
      developmentMode: false,
    });
    for (const uri of bad) {
      const res = await authorize(app.clientId, uri);
      expect(res.status, uri).toBe(400);
      expect(res.headers.get('location'), uri).toBeNull();
    }
  });

  it('a native app may use its custom scheme and loopback http, never a script scheme', async () => {
    const native = await addOidcApp(server, project, {
      redirectUris: ['com.example.app:/cb', 'http://127.0.0.1/cb', 'javascript:alert(1)//'],
      applicationType: 'NATIVE',
      authMethodType: 'NONE',
    });
    expect((await authorize(native.clientId, 'com.example.app:/cb')).status).toBe(303);
    expect((await authorize(native.clientId, 'http://127.0.0.1:5555/cb')).status).toBe(303);
    expect((await authorize(native.clientId, 'javascript:alert(1)//')).status).toBe(400);
  });
});
