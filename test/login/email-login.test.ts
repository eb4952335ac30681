import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { addRelyingParty } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

describe('signing in with the email address', () => {
  let server: TestServer;
  let config: client.Configuration;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server, { basicAuth: true });
  });
  afterAll(() => server?.stop());

  const signIn = (loginName: string, password: string) =>
    new Browser(server.url)
      .login(
        client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid' }).toString(),
        loginName,
        password,
      )
      .then(
        (url) => new URL(url).searchParams.has('code'),
        () => false,
      );

  it('a verified email of one user works as login name; a shared one does not; the setting turns it off', async () => {
    const user = await addUser(server, { email: 'Grace.Hopper@Navy.example' });
    expect(await signIn('grace.hopper@navy.example', user.password)).toBe(true);
    const a = await addUser(server, { email: 'shared@example.com' });
    await addUser(server, { email: 'shared@example.com' });
    expect(await signIn('shared@example.com', a.password)).toBe(false);
    await server.client(InstanceService).updateInstanceSettings({ loginWithEmailAllowed: false });
    expect(await signIn('grace.hopper@navy.example', user.password)).toBe(false);
    expect(await signIn(user.username, user.password)).toBe(true);
    await server.client(InstanceService).updateInstanceSettings({ loginWithEmailAllowed: true });
  });
});
