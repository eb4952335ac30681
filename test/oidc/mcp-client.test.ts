import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication } from '../../src/domain/application/commands';
import { updateInstanceSettings } from '../../src/domain/instance/update-settings';
import { addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { basic, postFormJson } from '../helpers/forms';
import { unique } from '../helpers/names';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/**
 * An MCP-style agent, end to end: it registers itself (RFC 7591), signs a user in with the code flow
 * and PKCE asking for one MCP server as its `resource` (RFC 8707), and that MCP server, an API
 * application, introspects the token and sees exactly its own audience; another API does not.
 */
describe('an MCP-style client', () => {
  let server: TestServer;
  let mcp: { clientId: string; clientSecret: string; resourceUri: string };
  let other: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    server = await startTestServer();
    const apis = await addProject(server);
    const api = async (resourceUri: string) => {
      const app = await createApplication(systemCtx(server), {
        projectId: apis,
        name: unique('mcp-server'),
        config: { type: 'API', api: { authMethodType: 'BASIC', resourceUri } },
      });
      return { clientId: app.clientId!, clientSecret: app.clientSecret!, resourceUri };
    };
    mcp = await api(`https://mcp-${unique('x')}.example.com/mcp`);
    other = await api(`https://other-${unique('x')}.example.com/`);
    await updateInstanceSettings(systemCtx(server), {
      dynamicRegistration: 'OPEN',
      dynamicRegistrationProjectId: await addProject(server),
      dynamicRegistrationGrantTypes: ['authorization_code', 'refresh_token'],
    });
  });
  afterAll(() => server?.stop());

  const introspect = async (api: { clientId: string; clientSecret: string }, token: string) =>
    (
      await postFormJson(
        server,
        '/oauth/v2/introspect',
        { token },
        { authorization: basic(api.clientId, api.clientSecret) },
      )
    ).body;

  it('registers, signs the user in with PKCE and a resource, and only that MCP server accepts the token', async () => {
    const config = await client.dynamicClientRegistration(
      new URL(server.url),
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', client_name: 'agent', scope: 'openid' },
      client.None(),
      { execute: [client.allowInsecureRequests] },
    );
    const user = await addUser(server);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'st',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: mcp.resourceUri,
    });
    const landed = await new Browser(server.url).login(url.toString(), user.username, user.password);
    const tokens = await client.authorizationCodeGrant(config, new URL(landed), {
      pkceCodeVerifier: verifier,
      expectedState: 'st',
    });
    expect(await introspect(mcp, tokens.access_token)).toMatchObject({
      active: true,
      aud: [mcp.resourceUri],
      client_id: config.clientMetadata().client_id,
      sub: user.id,
    });
    expect(await introspect(other, tokens.access_token)).toEqual({ active: false });
  });
});
