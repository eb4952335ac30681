import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { pushedRequests } from '../../src/db/schema/index';
import { sha256Hex } from '../../src/crypto/random';
import { addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { lastPosition, eventsSince } from '../helpers/events';
import { basic, postFormJson } from '../helpers/forms';
import { rp } from '../helpers/login-flow';
import { rows } from '../helpers/rows';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/** Pushed authorization requests (RFC 9126): /oauth/v2/par and request_uri at the authorization endpoint. */
describe('pushed authorization requests', () => {
  let server: TestServer;
  let project: string;
  let user: Awaited<ReturnType<typeof addUser>>;
  let app: Awaited<ReturnType<typeof addOidcApp>>;
  beforeAll(async () => {
    server = await startTestServer();
    project = await addProject(server);
    user = await addUser(server);
    app = await addOidcApp(server, project);
  });
  afterAll(() => server?.stop());

  const pkce = async () => {
    const verifier = client.randomPKCECodeVerifier();
    return { verifier, challenge: await client.calculatePKCECodeChallenge(verifier) };
  };

  /** Pushes with client_secret_basic; answers status and body. */
  async function push(form: Record<string, string>, who = app) {
    const { challenge } = await pkce();
    return postFormJson(
      server,
      '/oauth/v2/par',
      {
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        ...form,
      },
      { authorization: basic(who.clientId, who.clientSecret!) },
    );
  }

  const authorizeUrl = (clientId: string, requestUri: string, extra: Record<string, string> = {}) => {
    const query = new URLSearchParams({ client_id: clientId, request_uri: requestUri, ...extra });
    return `${server.url}/oauth/v2/authorize?${query}`;
  };

  /** Signs in through the pushed request and exchanges the code: the whole flow. */
  async function signInWithPar(config: client.Configuration, extraQuery: Record<string, string> = {}) {
    const { verifier, challenge } = await pkce();
    const state = client.randomState();
    const url = await client.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      scope: 'openid email',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    for (const [k, v] of Object.entries(extraQuery)) url.searchParams.set(k, v);
    const landed = new URL(await new Browser(server.url).login(url.toString(), user.username, user.password));
    const tokens = await client.authorizationCodeGrant(config, landed, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    return { landed, tokens };
  }

  it('openid-client pushes, signs in through the hosted login, gets tokens; events record push and use', async () => {
    const before = await lastPosition(server);
    const config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    const { tokens } = await signInWithPar(config);
    expect(tokens.claims()!.sub).toBe(user.id);
    expect(tokens.scope).toBe('openid email');
    const pushed = await eventsSince(server, before, 'auth_request.pushed');
    expect(pushed).toHaveLength(1);
    expect(pushed[0].payload).toMatchObject({ clientId: app.clientId });
    const used = await eventsSince(server, before, 'auth_request.pushed.used');
    expect(used.map((e) => e.aggregateId)).toEqual([pushed[0].aggregateId]);
  });

  it('a public client pushes with its client_id alone (and PKCE)', async () => {
    const pub = await addOidcApp(server, project, { authMethodType: 'NONE', applicationType: 'NATIVE' });
    const config = await rp(server, pub.clientId, { token_endpoint_auth_method: 'none' }, client.None());
    const { tokens } = await signInWithPar(config);
    expect(tokens.claims()!.sub).toBe(user.id);
  });

  it('answers 201 with a request_uri URN and expires_in 60; stores no client secret', async () => {
    const res = await push({ state: 'abc' });
    expect(res.status).toBe(201);
    expect(res.body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{40,}$/);
    expect(res.body.expires_in).toBe(60);
    const res2 = await postFormJson(server, '/oauth/v2/par', {
      client_id: app.clientId,
      client_secret: app.clientSecret!,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
    });
    expect(res2.status).toBe(201);
    const [row] = await rows(
      server,
      `select * from pushed_requests where request_uri_hash = '${sha256Hex(res2.body.request_uri)}'`,
    );
    expect(row.params).toMatchObject({ client_id: app.clientId, redirect_uri: REDIRECT });
    expect(JSON.stringify(row)).not.toContain(app.clientSecret!);
    expect(JSON.stringify(row)).not.toContain(res2.body.request_uri);
  });

  it('parameters on the query besides client_id and request_uri are ignored', async () => {
    const config = await rp(server, app.clientId, app.clientSecret, client.ClientSecretBasic(app.clientSecret!));
    const { landed, tokens } = await signInWithPar(config, {
      redirect_uri: 'https://evil.example.com/cb',
      scope: 'openid profile phone',
      response_mode: 'fragment',
    });
    expect(landed.origin + landed.pathname).toBe(REDIRECT);
    expect(landed.searchParams.get('code')).toBeTruthy();
    expect(tokens.scope).toBe('openid email');
  });

  it('a request_uri works once: the second use is refused', async () => {
    const { body } = await push({});
    const first = await fetch(authorizeUrl(app.clientId, body.request_uri), { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toContain('/ui/login');
    const second = await fetch(authorizeUrl(app.clientId, body.request_uri), { redirect: 'manual' });
    expect(second.status).toBe(400);
    expect(second.headers.get('location')).toBeNull();
    expect(await second.text()).toContain('already used');
    const { body: fresh } = await push({});
    const twice = await fetch(`${authorizeUrl(app.clientId, fresh.request_uri)}&request_uri=urn%3Ax`, {
      redirect: 'manual',
    });
    expect(twice.status).toBe(400);
  });

  it('an expired request_uri is refused', async () => {
    const { body } = await push({});
    await server.app.database.db
      .update(pushedRequests)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(pushedRequests.requestUriHash, sha256Hex(body.request_uri)));
    const res = await fetch(authorizeUrl(app.clientId, body.request_uri), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('expired');
  });

  it("another client cannot use a client's request_uri (and does not burn it)", async () => {
    const other = await addOidcApp(server, project);
    const { body } = await push({});
    const stolen = await fetch(authorizeUrl(other.clientId, body.request_uri), { redirect: 'manual' });
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).toContain('another client');
    const own = await fetch(authorizeUrl(app.clientId, body.request_uri), { redirect: 'manual' });
    expect(own.status).toBe(303);
  });

  it('a request_uri that is a URL is refused and never fetched', async () => {
    let hits = 0;
    const upstream = createServer((_req, res) => {
      hits++;
      res.end('eyJhbGciOiJub25lIn0.e30.');
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/request.jwt`;
      const res = await fetch(
        authorizeUrl(app.clientId, url, { response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' }),
        { redirect: 'manual' },
      );
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('URLs are not fetched');
      expect(hits).toBe(0);
    } finally {
      upstream.close();
    }
  });

  it('a confidential client must authenticate at the PAR endpoint', async () => {
    const count = async () => (await rows(server, 'select count(*)::int as n from pushed_requests'))[0].n;
    const stored = await count();
    const form = { client_id: app.clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' };
    const none = await postFormJson(server, '/oauth/v2/par', form);
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('invalid_client');
    const wrong = await postFormJson(server, '/oauth/v2/par', form, { authorization: basic(app.clientId, 'nope') });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    expect(await count()).toBe(stored);
  });

  it("runs the authorization endpoint's checks at push time, answering OAuth JSON", async () => {
    const badRedirect = await push({ redirect_uri: 'https://evil.example.com/cb' });
    expect(badRedirect).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(badRedirect.body.error_description).toContain('redirect_uri');
    const noOpenid = await push({ scope: 'profile' });
    expect(noOpenid).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    const plainPkce = await push({ code_challenge_method: 'plain' });
    expect(plainPkce).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const codeOnly = await addOidcApp(server, project, { responseTypes: ['CODE'] });
    const implicit = await push({ response_type: 'id_token', nonce: 'n' }, codeOnly);
    expect(implicit).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
    const nested = await push({ request_uri: 'urn:ietf:params:oauth:request_uri:x' });
    expect(nested).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const repeated = await fetch(`${server.url}/oauth/v2/par`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic(app.clientId, app.clientSecret!),
      },
      body: `response_type=code&scope=openid&scope=openid+email&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    });
    expect(repeated.status).toBe(400);
    expect(await repeated.json()).toMatchObject({ error: 'invalid_request' });
    const pub = await addOidcApp(server, project, { authMethodType: 'NONE', applicationType: 'NATIVE' });
    const noPkce = await postFormJson(server, '/oauth/v2/par', {
      client_id: pub.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
    });
    expect(noPkce).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(noPkce.body.error_description).toContain('PKCE');
  });

  it('a PAR-required client (set through the v2 API) cannot use the plain authorization request', async () => {
    const strict = await addOidcApp(server, project);
    const apps = server.client(ApplicationService);
    await apps.updateApplication({
      applicationId: strict.applicationId,
      configuration: { case: 'oidc', value: { requirePushedAuthorizationRequests: true } },
    });
    const got = (await apps.getApplication({ applicationId: strict.applicationId })).application!;
    expect(got.configuration.value).toMatchObject({ requirePushedAuthorizationRequests: true });

    const config = await rp(server, strict.clientId, strict.clientSecret);
    const plain = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 's1',
      code_challenge: (await pkce()).challenge,
      code_challenge_method: 'S256',
    });
    const refused = await fetch(plain, { redirect: 'manual' });
    const location = new URL(refused.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('state')).toBe('s1');
    expect(location.searchParams.get('code')).toBeNull();

    const { tokens } = await signInWithPar(config);
    expect(tokens.claims()!.sub).toBe(user.id);

    // and an application that never set it keeps the plain request
    const loose = await fetch(
      client.buildAuthorizationUrl(await rp(server, app.clientId, app.clientSecret), {
        redirect_uri: REDIRECT,
        scope: 'openid',
      }),
      { redirect: 'manual' },
    );
    expect(loose.headers.get('location')).toContain('/ui/login');
  });

  it('discovery advertises the endpoint, per-client requirement and the request_uri support', async () => {
    const d = await (await fetch(`${server.url}/.well-known/openid-configuration`)).json();
    expect(d).toMatchObject({
      pushed_authorization_request_endpoint: `${server.url}/oauth/v2/par`,
      require_pushed_authorization_requests: false,
      // only PAR's own URNs are taken, never a request object by URL: discovery does not claim that
      request_uri_parameter_supported: false,
    });
  });
});
