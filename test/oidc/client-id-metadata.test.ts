import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Code } from '@connectrpc/connect';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { createAuthorization } from '../../src/domain/authorization/commands';
import { updateInstanceSettings } from '../../src/domain/instance/update-settings';
import { addProjectRole } from '../../src/domain/project/roles';
import { FETCH_TIMEOUT_MS } from '../../src/domain/oidc/client-metadata/fetch';
import { addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { basic, postFormJson } from '../helpers/forms';
import { pkceAuthUrl, rp } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

/**
 * Client ID metadata documents, through the public endpoints: a real HTTP server on loopback serves
 * the documents (the test server's issuer is http on 127.0.0.1, the development mode in which plain
 * http to loopback is allowed). Each attack fails if the server uses a document it must not, follows
 * a redirect, reads a huge body whole or waits forever.
 */
describe('client ID metadata documents', () => {
  let server: TestServer;
  let docs: Server;
  let base: string;
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  let hugeBytesSent = 0;

  const doc = (path: string, extra: Record<string, unknown> = {}) => ({
    client_id: `${base}${path}`,
    client_name: 'Agent from a document',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
  const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  beforeAll(async () => {
    docs = createServer((req, res) => {
      const path = req.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path === '/agent' || path === '/flow') return json(res, doc(path), { 'cache-control': 'max-age=600' });
      if (path === '/no-store') return json(res, doc(path), { 'cache-control': 'no-store' });
      if (path === '/mismatch') return json(res, { ...doc(path), client_id: `${base}/someone-else` });
      if (path === '/secret-method') return json(res, doc(path, { token_endpoint_auth_method: 'client_secret_basic' }));
      if (path === '/http-redirect-uri') return json(res, doc(path, { redirect_uris: ['http://rp.example.com/cb'] }));
      if (path === '/html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>not json</html>');
      }
      if (path === '/broken-json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"client_id": ');
      }
      const redirects: Record<string, string> = {
        '/to-loopback': `${base}/agent`,
        '/to-private': 'http://10.0.0.1/agent',
        '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
      };
      if (redirects[path]) {
        res.writeHead(302, { location: redirects[path] });
        return res.end();
      }
      if (path === '/huge') {
        // 10 MB of JSON-ish bytes, streamed without a length, stopping as soon as the reader hangs up
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let left = 160;
        const pump = () => {
          while (left > 0 && !res.destroyed) {
            left--;
            hugeBytesSent += chunk.length;
            if (!res.write(chunk)) return res.once('drain', pump);
          }
          if (!res.destroyed) res.end();
        };
        res.on('close', () => {
          left = 0;
        });
        return pump();
      }
      if (path === '/hang') return; // never answers
      res.writeHead(404).end();
    });
    docs.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
    server = await startTestServer();
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => docs?.close(r));
    await server?.stop();
  });

  const enable = async (on = true) =>
    updateInstanceSettings(systemCtx(server), {
      clientIdMetadataDocuments: on,
      ...(on ? { clientIdMetadataDocumentsProjectId: await addProject(server) } : {}),
    });
  const authorize = (clientId: string, extra: Record<string, string> = {}) =>
    fetch(
      `${server.url}/oauth/v2/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'openid',
        state: 'st',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        ...extra,
      })}`,
      { redirect: 'manual' },
    );
  /** The error page (400, never a redirect to the unverified redirect_uri); answers its text. */
  const refused = async (clientId: string, extra: Record<string, string> = {}) => {
    const res = await authorize(clientId, extra);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    return (await res.text()).replaceAll('&quot;', '"').replaceAll('&#39;', "'");
  };
  const discovery = async () =>
    (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;

  it('setting off: a URL client_id is refused at authorize and token; discovery does not advertise it', async () => {
    expect((await discovery()).client_id_metadata_document_supported).toBeUndefined();
    expect(await refused(`${base}/agent`)).toContain('does not accept client ID metadata documents');
    const token = await postFormJson(server, '/oauth/v2/token', {
      grant_type: 'authorization_code',
      code: 'x',
      client_id: `${base}/agent`,
      code_verifier: 'v'.repeat(43),
    });
    expect(token.status).toBe(401);
    expect(token.body.error).toBe('invalid_client');
    expect(hits.get('/agent')).toBeUndefined();
  });

  it('the settings through the v2 API: off by default, a project is required and must exist', async () => {
    const api = server.client(InstanceService);
    const { settings } = await api.getInstanceSettings({});
    expect(settings).toMatchObject({ clientIdMetadataDocuments: false, clientIdMetadataDocumentsProjectId: '' });
    await expect(api.updateInstanceSettings({ clientIdMetadataDocuments: true })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('client_id_metadata_documents_project_id is required'),
    });
    await expect(
      api.updateInstanceSettings({ clientIdMetadataDocuments: true, clientIdMetadataDocumentsProjectId: 'nope' }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: expect.stringContaining('not found') });
    const project = await addProject(server);
    await api.updateInstanceSettings({ clientIdMetadataDocuments: true, clientIdMetadataDocumentsProjectId: project });
    expect((await api.getInstanceSettings({})).settings).toMatchObject({
      clientIdMetadataDocuments: true,
      clientIdMetadataDocumentsProjectId: project,
    });
    await api.updateInstanceSettings({ clientIdMetadataDocuments: false });
  });

  describe('enabled', () => {
    beforeAll(() => enable());

    it('discovery says client_id_metadata_document_supported', async () => {
      expect((await discovery()).client_id_metadata_document_supported).toBe(true);
    });

    it('openid-client: code flow with PKCE and the URL as client_id, userinfo, refresh, revocation', async () => {
      const clientId = `${base}/flow`;
      const config = await rp(server, clientId, { token_endpoint_auth_method: 'none' }, client.None());
      const user = await addUser(server);
      const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid profile offline_access', state: 'st' });
      const landed = await new Browser(server.url).login(url, user.username, user.password);
      const tokens = await client.authorizationCodeGrant(config, new URL(landed), {
        pkceCodeVerifier: verifier,
        expectedState: 'st',
      });
      expect(tokens.claims()).toMatchObject({ aud: expect.arrayContaining([clientId]), azp: clientId, sub: user.id });
      const info = await client.fetchUserInfo(config, tokens.access_token, user.id);
      expect(info.sub).toBe(user.id);
      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
      expect(refreshed.access_token).toBeTruthy();
      await client.tokenRevocation(config, refreshed.access_token);
      const after = await fetch(`${server.url}/oidc/v1/userinfo`, {
        headers: { authorization: `Bearer ${refreshed.access_token}` },
      });
      expect(after.status).toBe(401);
    });

    it('PAR: a document client pushes a request (its listed redirect URI only) and authorizes with it', async () => {
      const clientId = `${base}/agent`;
      const form = {
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      };
      const pushed = await postFormJson(server, '/oauth/v2/par', form);
      expect(pushed.status).toBe(201);
      const query = new URLSearchParams({ client_id: clientId, request_uri: pushed.body.request_uri });
      const res = await fetch(`${server.url}/oauth/v2/authorize?${query}`, { redirect: 'manual' });
      expect(res.status).toBeLessThan(400);
      expect(res.headers.get('location')).not.toContain('rp.example.com');
      const foreign = await postFormJson(server, '/oauth/v2/par', {
        ...form,
        redirect_uri: 'https://evil.example.com/cb',
      });
      expect(foreign.status).toBe(400);
      const mismatch = await postFormJson(server, '/oauth/v2/par', { ...form, client_id: `${base}/mismatch` });
      expect(mismatch).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    });

    it('a public document client must use PKCE', async () => {
      // the client is known, so the error goes to its registered redirect URI
      const res = await fetch(
        `${server.url}/oauth/v2/authorize?${new URLSearchParams({
          client_id: `${base}/agent`,
          redirect_uri: REDIRECT,
          response_type: 'code',
          scope: 'openid',
        })}`,
        { redirect: 'manual' },
      );
      const loc = new URL(res.headers.get('location')!);
      expect(loc.origin + loc.pathname).toBe(REDIRECT);
      expect(loc.searchParams.get('error')).toBe('invalid_request');
      expect(loc.searchParams.get('error_description')).toContain('PKCE');
    });

    it('a document whose client_id differs from its URL is refused', async () => {
      expect(await refused(`${base}/mismatch`)).toContain('client_id equal to the URL');
    });

    it('a redirect_uri the document does not list is refused on the error page', async () => {
      expect(await refused(`${base}/agent`, { redirect_uri: 'https://evil.example.com/cb' })).toContain('redirect_uri');
    });

    it('a document with an http redirect URI fails the compliance rules', async () => {
      expect(await refused(`${base}/http-redirect-uri`)).toContain('uses http on a non-loopback host');
    });

    it('redirects are not followed: to loopback, to 10.x, to 169.254.169.254', async () => {
      for (const path of ['/to-loopback', '/to-private', '/to-metadata']) {
        expect(await refused(`${base}${path}`), path).toContain(
          'answered a redirect (HTTP 302), which is not followed',
        );
      }
      // the loopback target was never fetched through the redirect
      expect(hits.get('/agent') ?? 0).toBeLessThanOrEqual(1);
    });

    it('a client_id URL on a private, link-local or plain-http address is refused before any connection', async () => {
      expect(await refused('https://169.254.169.254/latest/meta-data')).toContain(
        'is a private, link-local or reserved address',
      );
      expect(await refused('https://10.0.0.1/agent')).toContain('is a private, link-local or reserved address');
      expect(await refused('https://[fe80::1]/agent')).toContain('is a private, link-local or reserved address');
      expect(await refused('http://10.0.0.1/agent')).toContain('must use https');
    });

    it('the draft URL rules: a path, no fragment, no credentials, no dot segments', async () => {
      expect(await refused(`${base}/`)).toContain('must have a path');
      expect(await refused(`${base}/agent#x`)).toContain('must not contain a fragment');
      expect(await refused(`http://user:pw@127.0.0.1:1/agent`)).toContain('must not contain a user name or password');
      expect(await refused(`${base}/a/../agent`)).toContain('must not contain "." or ".." path segments');
    });

    it('a 10 MB document is cut off after the limit, with a clear error, and the server stays responsive', async () => {
      const started = Date.now();
      expect(await refused(`${base}/huge`)).toContain('is larger than 5120 bytes');
      expect(Date.now() - started).toBeLessThan(FETCH_TIMEOUT_MS);
      // we hung up long before 10 MB were sent (socket buffers hold a few hundred kB at most)
      await new Promise((r) => setTimeout(r, 100));
      expect(hugeBytesSent).toBeLessThan(4 * 1024 * 1024);
      expect((await fetch(`${server.url}/.well-known/openid-configuration`)).status).toBe(200);
    });

    it('a server that never answers is given up after the time limit', async () => {
      const started = Date.now();
      expect(await refused(`${base}/hang`)).toContain(`did not arrive within ${FETCH_TIMEOUT_MS} ms`);
      expect(Date.now() - started).toBeLessThan(FETCH_TIMEOUT_MS + 2000);
      expect((await fetch(`${server.url}/.well-known/openid-configuration`)).status).toBe(200);
    });

    it('a document that is not JSON is refused', async () => {
      expect(await refused(`${base}/html`)).toContain('is not JSON (content type "text/html")');
      expect(await refused(`${base}/broken-json`)).toContain('is not valid JSON');
    });

    it('a document asking for a secret method is refused; a document client cannot use a secret', async () => {
      expect(await refused(`${base}/secret-method`)).toContain('only none is supported');
      const refresh = { grant_type: 'refresh_token', refresh_token: 'x' };
      for (const [form, headers] of [
        [refresh, { authorization: basic(`${base}/agent`, 'guessed') }],
        [{ ...refresh, client_id: `${base}/agent`, client_secret: 'guessed' }, {}],
      ] as [Record<string, string>, Record<string, string>][]) {
        const r = await postFormJson(server, '/oauth/v2/token', form, headers);
        expect(r.status).toBe(401);
        expect(r.body.error).toBe('invalid_client');
        expect(r.body.error_description).toContain('NONE');
      }
    });

    it('errors at the token endpoint are invalid_client', async () => {
      const r = await postFormJson(server, '/oauth/v2/token', {
        grant_type: 'authorization_code',
        code: 'x',
        client_id: `${base}/mismatch`,
        code_verifier: 'v'.repeat(43),
      });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ error: 'invalid_client' });
      expect(r.body.error_description).toContain('client_id equal to the URL');
    });

    it("the user must be allowed into the documents' project (authorization required)", async () => {
      await updateInstanceSettings(systemCtx(server), {
        clientIdMetadataDocumentsProjectId: await addProject(server, { authorizationRequired: true }),
      });
      try {
        const user = await addUser(server);
        const config = await rp(server, `${base}/flow`, { token_endpoint_auth_method: 'none' }, client.None());
        const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
        const landed = new URL(await new Browser(server.url).login(url, user.username, user.password));
        expect(landed.searchParams.get('error')).toBe('access_denied');
        expect(landed.searchParams.get('code')).toBeNull();
      } finally {
        await enable();
      }
    });

    it("the documents' project asserts roles: in the access token's userinfo as for an application", async () => {
      const project = await addProject(server, { projectRoleAssertion: true });
      await updateInstanceSettings(systemCtx(server), { clientIdMetadataDocumentsProjectId: project });
      try {
        await addProjectRole(systemCtx(server), { projectId: project, key: 'reader', displayName: 'Reader' });
        const user = await addUser(server);
        await createAuthorization(systemCtx(server), { userId: user.id, projectId: project, roleKeys: ['reader'] });
        const config = await rp(server, `${base}/flow`, { token_endpoint_auth_method: 'none' }, client.None());
        const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
        const landed = await new Browser(server.url).login(url, user.username, user.password);
        const tokens = await client.authorizationCodeGrant(config, new URL(landed), {
          pkceCodeVerifier: verifier,
          expectedState: 'st',
        });
        const info = await client.fetchUserInfo(config, tokens.access_token, user.id);
        expect(Object.keys((info['urn:service:iam:org:project:roles'] ?? {}) as object)).toEqual(['reader']);
      } finally {
        await enable();
      }
    });

    it('tokens of a document client stop working when the setting is turned off', async () => {
      const config = await rp(server, `${base}/flow`, { token_endpoint_auth_method: 'none' }, client.None());
      const user = await addUser(server);
      const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
      const landed = await new Browser(server.url).login(url, user.username, user.password);
      const tokens = await client.authorizationCodeGrant(config, new URL(landed), {
        pkceCodeVerifier: verifier,
        expectedState: 'st',
      });
      const userinfo = () =>
        fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect((await userinfo()).status).toBe(200);
      await enable(false);
      try {
        expect((await userinfo()).status).toBe(401);
        const refreshed = await postFormJson(server, '/oauth/v2/token', {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token ?? 'none',
          client_id: `${base}/flow`,
        });
        expect(refreshed.status).toBe(401);
        expect(refreshed.body.error).toBe('invalid_client');
      } finally {
        await enable();
      }
    });

    it('the cache honours max-age (no refetch) and no-store (refetch every time)', async () => {
      const before = hits.get('/agent') ?? 0;
      expect((await authorize(`${base}/agent`)).status).toBe(303);
      expect((await authorize(`${base}/agent`)).status).toBe(303);
      expect(hits.get('/agent')).toBe(Math.max(before, 1));
      expect((await authorize(`${base}/no-store`)).status).toBe(303);
      expect((await authorize(`${base}/no-store`)).status).toBe(303);
      expect(hits.get('/no-store')).toBe(2);
    });
  });
});
