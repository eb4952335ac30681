import type * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { addApiApp, addOidcApp, addProject } from '../helpers/apps';
import { basic, postForm } from '../helpers/forms';
import { codeFlowTokens, rp } from '../helpers/login-flow';
import { addUser } from '../helpers/users';

/**
 * Userinfo and introspection answer repeated lookups of a token from a cache: every change that could
 * alter the answer must show in the very next request, never an old answer.
 */
describe('cached token lookups follow every change', () => {
  let server: TestServer;
  let config: client.Configuration;
  let api: Awaited<ReturnType<typeof addApiApp>>;
  beforeAll(async () => {
    server = await startTestServer();
    const project = await addProject(server);
    const app = await addOidcApp(server, project);
    api = await addApiApp(server, project);
    config = await rp(server, app.clientId, app.clientSecret);
  });
  afterAll(() => server?.stop());

  const userinfo = async (token: string) => {
    const res = await fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: await res.json() };
  };
  const introspect = async (token: string) =>
    (
      await postForm(
        server,
        '/oauth/v2/introspect',
        { token },
        { authorization: basic(api.clientId, api.clientSecret) },
      )
    ).json();

  it('profile/email changes made after the token lookup show in the next userinfo and introspection', async () => {
    const user = await addUser(server);
    const { tokens } = await codeFlowTokens(server, config, user);
    for (let i = 0; i < 3; i++) expect((await userinfo(tokens.access_token)).body.given_name).not.toBe('Changed');
    expect((await introspect(tokens.access_token)).active).toBe(true);
    await server.client(UserService).updateUser({
      userId: user.id,
      userType: {
        case: 'human',
        value: {
          profile: { givenName: 'Changed' },
          email: { email: 'changed@example.com', verification: { case: 'isVerified', value: true } },
        },
      },
    });
    const after = await userinfo(tokens.access_token);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ given_name: 'Changed', email: 'changed@example.com' });
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true, email: 'changed@example.com' });
  });

  it('a user locked after lookups gets 401 at once, and the token is active again after unlocking', async () => {
    const user = await addUser(server);
    const { tokens } = await codeFlowTokens(server, config, user);
    expect((await userinfo(tokens.access_token)).status).toBe(200);
    await server.client(UserService).lockUser({ userId: user.id });
    expect((await userinfo(tokens.access_token)).status).toBe(401);
    expect((await introspect(tokens.access_token)).active).toBe(false);
    await server.client(UserService).unlockUser({ userId: user.id });
    expect((await userinfo(tokens.access_token)).status).toBe(200);
  });

  it('signing in other users (new sessions and tokens) keeps earlier answers correct', async () => {
    const first = await addUser(server);
    const { tokens } = await codeFlowTokens(server, config, first);
    const before = await userinfo(tokens.access_token);
    await codeFlowTokens(server, config, await addUser(server));
    expect(await userinfo(tokens.access_token)).toEqual(before);
  });
});
