import { Code, ConnectError } from '@connectrpc/connect';
import * as client from 'openid-client';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, updateApplication } from '../../src/domain/application/commands';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { systemCtx } from '../helpers/context';
import { basic, postFormJson } from '../helpers/forms';
import { decodePayload, TOKEN_EXCHANGE, TT } from '../helpers/jwt-grants';
import { rp } from '../helpers/login-flow';
import { Browser } from '../helpers/browser';
import { addMachine, machineConfig } from '../helpers/machines';
import { unique } from '../helpers/names';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** An API application (introspects with Basic) with a registered resource URI. */
async function addResourceApi(server: TestServer, projectId: string, resourceUri: string) {
  const app = await createApplication(systemCtx(server), {
    projectId,
    name: unique('api'),
    config: { type: 'API', api: { authMethodType: 'BASIC', resourceUri } },
  });
  return { applicationId: app.id, clientId: app.clientId!, clientSecret: app.clientSecret!, resourceUri };
}

describe('resource indicators (RFC 8707)', () => {
  let server: TestServer;
  let config: client.Configuration;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  let apiA: Awaited<ReturnType<typeof addResourceApi>>;
  let apiB: Awaited<ReturnType<typeof addResourceApi>>;
  let apiProject: string;
  let user: { username: string; password: string };
  let ownApi: Awaited<ReturnType<typeof addResourceApi>>;

  beforeAll(async () => {
    server = await startTestServer();
    const ownProject = await addProject(server);
    app = await addOidcApp(server, ownProject, {
      accessTokenType: 'JWT',
      grantTypes: ['AUTHORIZATION_CODE', 'REFRESH_TOKEN', 'TOKEN_EXCHANGE'],
    });
    apiProject = await addProject(server);
    apiA = await addResourceApi(server, apiProject, `https://a-${unique('x')}.example.com/mcp`);
    apiB = await addResourceApi(server, apiProject, `https://b-${unique('x')}.example.com/`);
    // in the client's own project, before the client is first read (its default audience is cached)
    ownApi = await addResourceApi(server, ownProject, `https://own-${unique('x')}.example.com`);
    config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    user = await addUser(server);
  });
  afterAll(() => server?.stop());

  const introspectAs = async (api: { clientId: string; clientSecret: string }, token: string) =>
    (
      await postFormJson(
        server,
        '/oauth/v2/introspect',
        { token },
        { authorization: basic(api.clientId, api.clientSecret) },
      )
    ).body;

  /** Code flow with PKCE to the tokens, with `resource` values at authorize (and optionally at token). */
  async function tokensFor(resources: string[], atToken?: Record<string, string>) {
    return codeWithUrl(await authUrl(resources), atToken);
  }

  it('code flow with PKCE and resource: the JWT access token has exactly that audience', async () => {
    const tokens = await tokensFor([apiA.resourceUri]);
    expect(decodePayload(tokens.access_token).aud).toEqual([apiA.resourceUri]);

    const byA = await introspectAs(apiA, tokens.access_token);
    expect(byA).toMatchObject({ active: true, aud: [apiA.resourceUri], client_id: app.clientId });
    // the other API (even of the same project) is not in the audience: introspection says inactive
    expect(await introspectAs(apiB, tokens.access_token)).toEqual({ active: false });
  });

  it('without resource the default audience is unchanged', async () => {
    const tokens = await tokensFor([]);
    const aud = decodePayload(tokens.access_token).aud as string[];
    expect(aud).toContain(app.clientId);
    expect(aud).not.toContain(apiA.resourceUri);
    expect(await introspectAs(apiA, tokens.access_token)).toEqual({ active: false });
  });

  it('two resources at authorize; refresh narrows to one, and asking for more is invalid_target', async () => {
    const auth = await authUrl([apiA.resourceUri, apiB.resourceUri]);
    expect(new URL(auth.url).searchParams.getAll('resource')).toHaveLength(2);
    const tokens = await codeWithUrl(auth);
    expect(decodePayload(tokens.access_token).aud).toEqual([apiA.resourceUri, apiB.resourceUri]);

    const narrowed = await client.refreshTokenGrant(config, tokens.refresh_token!, { resource: apiB.resourceUri });
    expect(decodePayload(narrowed.access_token).aud).toEqual([apiB.resourceUri]);
    expect(await introspectAs(apiA, narrowed.access_token)).toEqual({ active: false });
    expect(await introspectAs(apiB, narrowed.access_token)).toMatchObject({ active: true });

    // the refresh token still covers the whole grant: back to both is fine
    const both = await client.refreshTokenGrant(config, narrowed.refresh_token!);
    expect(decodePayload(both.access_token).aud).toEqual([apiA.resourceUri, apiB.resourceUri]);

    const other = await addResourceApi(server, apiProject, `https://c-${unique('x')}.example.com`);
    const wider = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: both.refresh_token!,
      resource: other.resourceUri,
    });
    expect(wider).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    const project = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: both.refresh_token!,
      resource: `urn:portcullis:project:${apiProject}`,
    });
    expect(project.body.error).toBe('invalid_target');
    // the refused requests did not use up the refresh token
    const after = await client.refreshTokenGrant(config, both.refresh_token!);
    expect(decodePayload(after.access_token).aud).toEqual([apiA.resourceUri, apiB.resourceUri]);
  });

  it('resource at the token endpoint narrows a code exchange', async () => {
    const auth = await authUrl([apiA.resourceUri, apiB.resourceUri]);
    const tokens = await codeWithUrl(auth, { resource: apiA.resourceUri });
    expect(decodePayload(tokens.access_token).aud).toEqual([apiA.resourceUri]);
  });

  it('a project URN is a resource: every application of the project may introspect', async () => {
    const urn = `urn:portcullis:project:${apiProject}`;
    const tokens = await tokensFor([urn]);
    expect(decodePayload(tokens.access_token).aud).toEqual([urn]);
    expect(await introspectAs(apiA, tokens.access_token)).toMatchObject({ active: true, aud: [urn] });
    expect(await introspectAs(apiB, tokens.access_token)).toMatchObject({ active: true });
  });

  it('unknown, relative or fragment resources are invalid_target at authorize (error redirect)', async () => {
    const bad = [
      'https://unknown.example.com/api',
      '/relative/api',
      `${apiA.resourceUri}#frag`,
      'urn:portcullis:project:nope',
    ];
    for (const resource of bad) {
      const { url } = await authUrl([resource]);
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status, resource).toBeGreaterThanOrEqual(300);
      const location = new URL(res.headers.get('location')!);
      expect(location.origin + location.pathname).toBe(REDIRECT);
      expect(location.searchParams.get('error'), resource).toBe('invalid_target');
    }
  });

  it('unknown, relative or fragment resources are invalid_target at the token endpoint', async () => {
    const tokens = await tokensFor([]);
    for (const resource of ['https://unknown.example.com/api', 'relative', `${apiA.resourceUri}#x`]) {
      const r = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, resource });
      expect(r, resource).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    }
  });

  it('a default grant may narrow to an API of its own audience, not to a foreign one', async () => {
    const tokens = await tokensFor([]);
    const own = await client.refreshTokenGrant(config, tokens.refresh_token!, { resource: ownApi.resourceUri });
    expect(decodePayload(own.access_token).aud).toEqual([ownApi.resourceUri]);
    const foreign = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: own.refresh_token!,
      resource: apiA.resourceUri,
    });
    expect(foreign.body.error).toBe('invalid_target');
  });

  it('client_credentials with resource: the audience is exactly that resource', async () => {
    const m = await addMachine(server);
    const mc = await machineConfig(server, m);
    const t = await client.clientCredentialsGrant(mc, { scope: 'openid', resource: apiA.resourceUri });
    expect(await introspectAs(apiA, t.access_token)).toMatchObject({ active: true, aud: [apiA.resourceUri] });
    expect(await introspectAs(apiB, t.access_token)).toEqual({ active: false });
    const bad = await postFormJson(
      server,
      '/oauth/v2/token',
      { grant_type: 'client_credentials', scope: 'openid', resource: 'https://nobody.example.com' },
      { authorization: basic(m.username, m.clientSecret) },
    );
    expect(bad).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
  });

  it('token exchange with resource stays invalid_request', async () => {
    const tokens = await tokensFor([]);
    const r = await tokenRequest({
      grant_type: TOKEN_EXCHANGE,
      subject_token: tokens.access_token,
      subject_token_type: TT.access,
      resource: apiA.resourceUri,
    });
    expect(r).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('resource URIs are validated and unique in the instance', async () => {
    const ctx = systemCtx(server);
    const create = (resourceUri: string) =>
      createApplication(ctx, {
        projectId: apiProject,
        name: unique('api'),
        config: { type: 'API', api: { authMethodType: 'BASIC', resourceUri } },
      });
    for (const bad of ['http://api.example.com', 'https://api.example.com/#x', '/api', 'urn:x:y']) {
      await expect(create(bad), bad).rejects.toMatchObject({ key: 'Errors.Application.ResourceUri.Invalid' });
    }
    await expect(create(apiA.resourceUri)).rejects.toMatchObject({ key: 'Errors.Application.ResourceUri.Taken' });
    const local = await create(`http://127.0.0.1:8080/${unique('x')}`);
    await expect(
      updateApplication(ctx, {
        applicationId: local.id,
        config: { type: 'API', api: { resourceUri: apiB.resourceUri } },
      }),
    ).rejects.toMatchObject({ key: 'Errors.Application.ResourceUri.Taken' });
    // removing it (empty) frees nothing else and keeps the application usable
    await updateApplication(ctx, { applicationId: local.id, config: { type: 'API', api: { resourceUri: '' } } });
  });

  it("the v2 API sets, shows, changes and removes an API application's resource_uri", async () => {
    const apps = server.client(ApplicationService);
    const uri = `https://v2-${unique('x')}.example.com/api`;
    const created = await apps.createApplication({
      projectId: apiProject,
      name: unique('api'),
      configuration: { case: 'api', value: { resourceUri: uri } },
    });
    const resourceUri = async () => {
      const { application } = await apps.getApplication({ applicationId: created.applicationId });
      return application?.configuration.case === 'api' ? application.configuration.value.resourceUri : undefined;
    };
    expect(await resourceUri()).toBe(uri);
    const taken = await apps
      .updateApplication({
        applicationId: created.applicationId,
        configuration: { case: 'api', value: { resourceUri: apiA.resourceUri } },
      })
      .catch((e: unknown) => e);
    expect(ConnectError.from(taken).code).toBe(Code.AlreadyExists);
    await apps.updateApplication({
      applicationId: created.applicationId,
      configuration: { case: 'api', value: {} },
      updateMask: { paths: ['api.resource_uri'] },
    });
    expect(await resourceUri()).toBe('');
  });

  /** An authorization URL (PKCE, state) with each resource as its own `resource` parameter. */
  async function authUrl(resources: string[]) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const params = new URLSearchParams({
      redirect_uri: REDIRECT,
      scope: 'openid offline_access',
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    for (const r of resources) params.append('resource', r);
    return { url: client.buildAuthorizationUrl(config, params).toString(), verifier, state };
  }

  async function codeWithUrl(auth: { url: string; verifier: string; state: string }, atToken?: Record<string, string>) {
    const landed = new URL(await new Browser(server.url).login(auth.url, user.username, user.password));
    expect(landed.searchParams.get('code'), landed.toString()).toBeTruthy();
    return client.authorizationCodeGrant(
      config,
      landed,
      { pkceCodeVerifier: auth.verifier, expectedState: auth.state },
      atToken,
    );
  }

  function tokenRequest(form: Record<string, string>) {
    return postFormJson(server, '/oauth/v2/token', form, { authorization: basic(app.clientId, app.clientSecret!) });
  }
});
