import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import { eq } from 'drizzle-orm';
import { generateKeyPair, SignJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityProviderService } from '../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { logoutDeliveries } from '../../src/db/schema/index';
import { deliverLogoutsNow } from '../../src/domain/oidc/logout/delivery';
import { addOidcApp, addProject } from '../helpers/apps';
import { getCode, rp } from '../helpers/login-flow';
import { addMachineWithToken } from '../helpers/machines';
import { addOrg } from '../helpers/orgs';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

const SAML_METADATA = readFileSync(join(__dirname, '../fixtures/idp/saml-idp-metadata.xml'), 'utf8');
const SUCCESS = 'https://login.example.com/idp/success';
const FAILURE = 'https://login.example.com/idp/failure';
const CLIENT_ID = 'portcullis-rp';

type Handler = (req: IncomingMessage, res: ServerResponse, base: string) => void;

/**
 * A listener on loopback, as a service inside the server's network would be: it counts every TCP
 * connection made to it (whatever the protocol) and answers HTTP by path with `routes`.
 */
async function countingListener(routes: Record<string, Handler> = {}) {
  let connections = 0;
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const handler = routes[path];
    if (handler) return handler(req, res, base);
    res.setHeader('content-type', 'application/samlmetadata+xml');
    res.end(SAML_METADATA);
  });
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    port,
    base,
    get connections() {
      return connections;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
type Listener = Awaited<ReturnType<typeof countingListener>>;

/** Every path answers a redirect to `to`. */
const redirectTo =
  (to: string): Handler =>
  (_req, res) => {
    res.statusCode = 302;
    res.setHeader('location', to);
    res.end();
  };

const json =
  (body: (base: string) => unknown): Handler =>
  (_req, res, base) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body(base)));
  };

const refusal = (p: Promise<unknown>): Promise<{ code: Code | 'ok'; message: string }> =>
  p.then(
    () => ({ code: 'ok' as const, message: '' }),
    (e) => ({ code: ConnectError.from(e).code, message: ConnectError.from(e).rawMessage }),
  );

function samlAt(metadataUrl: string) {
  return { case: 'saml' as const, value: { metadata: { case: 'metadataUrl' as const, value: metadataUrl } } };
}
function oidcAt(issuer: string) {
  return {
    case: 'genericOidc' as const,
    value: { issuer, clientId: CLIENT_ID, clientSecret: 'upstream-client-secret' },
  };
}
function oauthAt(tokenEndpoint: string, userinfoEndpoint: string) {
  return {
    case: 'genericOauth' as const,
    value: {
      authorizationEndpoint: 'https://oauth.example.com/authorize',
      tokenEndpoint,
      userinfoEndpoint,
      clientId: CLIENT_ID,
      clientSecret: 'upstream-client-secret',
      idAttribute: 'id',
    },
  };
}
function ldapAt(server: string) {
  return {
    case: 'ldap' as const,
    value: {
      servers: [server],
      baseDn: 'ou=people,dc=example,dc=com',
      bindDn: 'cn=reader,dc=example,dc=com',
      bindPassword: 'ldap-bind-passw0rd',
      userObjectClasses: ['inetOrgPerson'],
      userFilters: ['uid'],
      timeoutSeconds: 2,
    },
  };
}

/** An organization and its owner's IdentityProviderService: the caller who chooses the URLs. */
async function orgOwner(server: TestServer) {
  const org = await addOrg(server, `Outbound ${Math.random().toString(36).slice(2, 8)}`);
  const owner = await addMachineWithToken(server, org.id, { roles: ['ORG_OWNER'] });
  return { orgId: org.id, idps: server.client(IdentityProviderService, { token: owner.token }) };
}

/** A custom login UI (the admin's token holds the login UI's permission) starts a sign-in through `idpId`. */
function startSignIn(server: TestServer, idpId: string) {
  return server.client(UserService).startIdentityProviderIntent({
    idpId,
    content: { case: 'urls', value: { successUrl: SUCCESS, failureUrl: FAILURE } },
  });
}

function ldapSignIn(server: TestServer, idpId: string) {
  return server.client(UserService).startIdentityProviderIntent({
    idpId,
    content: { case: 'ldap', value: { username: 'alice', password: 'alice-secret' } },
  });
}

/** A relying party signed in through the hosted login; the session's id (the ID token's sid). */
async function signedInSession(server: TestServer, backchannelLogoutUri: string): Promise<string> {
  const app = await addOidcApp(server, await addProject(server), { backchannelLogoutUri });
  const config = await rp(server, app.clientId, app.clientSecret);
  const r = await getCode(server, config, await addUser(server));
  const tokens = await client.authorizationCodeGrant(config, r.landed, {
    pkceCodeVerifier: r.verifier,
    expectedState: r.state,
  });
  return tokens.claims()!.sid as string;
}

/** Ends the session through the API and runs the delivery; the delivery row's last error. */
async function endSessionAndDeliver(server: TestServer, sid: string): Promise<string | null> {
  await server.client(SessionService).deleteSession({ sessionId: sid });
  await deliverLogoutsNow(server.app.deps);
  const rows = await server.app.database.db.select().from(logoutDeliveries).where(eq(logoutDeliveries.sessionId, sid));
  expect(rows).toHaveLength(1);
  return rows[0]!.lastError;
}

describe('outbound fetches of a server whose issuer is https: nothing inside its network is reached', () => {
  const ISSUER = 'https://auth.example.test';
  let server: TestServer;
  let listener: Listener;
  let owner: Awaited<ReturnType<typeof orgOwner>>;

  beforeAll(async () => {
    server = await startTestServer({ PORTCULLIS_EXTERNAL_URL: ISSUER });
    listener = await countingListener();
    owner = await orgOwner(server);
  });
  afterAll(async () => {
    await listener?.close();
    await server?.stop();
  });

  it('SAML metadata_url on loopback, localhost, IPv4-mapped, private or metadata addresses: 400', async () => {
    const { port } = listener;
    const cases: [string, string][] = [
      [`http://127.0.0.1:${port}/metadata`, 'must use https'],
      [`https://127.0.0.1:${port}/metadata`, 'is at an address that is a loopback address'],
      // a host name is checked on the addresses it resolves to, in the connection's own lookup
      [`https://localhost:${port}/metadata`, 'resolves to an address that is a loopback address'],
      [`https://[::ffff:127.0.0.1]:${port}/metadata`, 'is at an address that is a loopback address'],
      [`https://[::1]:${port}/metadata`, 'is at an address that is a loopback address'],
      ['https://169.254.169.254/latest/meta-data', 'is a private, link-local or reserved address'],
      ['https://10.0.0.1/metadata', 'is a private, link-local or reserved address'],
      ['https://[fd00::1]/metadata', 'is a private, link-local or reserved address'],
    ];
    for (const [url, why] of cases) {
      const r = await refusal(
        owner.idps.createIdentityProvider({ organizationId: owner.orgId, name: 'Metadata', config: samlAt(url) }),
      );
      expect(r.code, url).toBe(Code.FailedPrecondition);
      expect(r.message, url).toMatch(/^metadata_url /);
      expect(r.message, url).toContain(why);
    }
    expect(listener.connections).toBe(0);
  });

  it('an OIDC provider whose issuer is the listener: the sign-in fails with 400, no connection', async () => {
    for (const [issuer, why] of [
      [`http://127.0.0.1:${listener.port}`, 'must use https'],
      [`https://localhost:${listener.port}`, 'resolves to an address that is a loopback address'],
    ]) {
      const { id } = await owner.idps.createIdentityProvider({
        organizationId: owner.orgId,
        name: 'Upstream',
        config: oidcAt(issuer!),
      });
      const r = await refusal(startSignIn(server, id));
      expect(r.code, issuer).toBe(Code.FailedPrecondition);
      expect(r.message, issuer).toContain(why);
    }
    expect(listener.connections).toBe(0);
  });

  it('an LDAP provider on a loopback host: the sign-in fails with 400, no connection', async () => {
    for (const [host, why] of [
      [`ldap://127.0.0.1:${listener.port}`, 'is at an address that is a loopback address'],
      [`ldap://localhost:${listener.port}`, 'resolves to an address that is a loopback address'],
    ]) {
      const { id } = await owner.idps.createIdentityProvider({
        organizationId: owner.orgId,
        name: 'Directory',
        config: ldapAt(host!),
      });
      const r = await refusal(ldapSignIn(server, id));
      expect(r.code, host).toBe(Code.FailedPrecondition);
      expect(r.message, host).toContain(why);
    }
    expect(listener.connections).toBe(0);
  });

  it('a back-channel logout URI on loopback: the delivery fails, no connection', async () => {
    // Signing in needs the issuer the test reaches; the delivery then runs as the https server.
    server.app.config.externalUrl = server.url;
    const sid = await signedInSession(server, `${listener.base}/backchannel`);
    server.app.config.externalUrl = ISSUER;
    expect(await endSessionAndDeliver(server, sid)).toContain('the back-channel logout URI must use https');
    expect(listener.connections).toBe(0);
  });
});

describe('development mode: each caller goes through the guarded fetcher (a redirect is not followed)', () => {
  let server: TestServer;
  let target: Listener;
  let upstream: Listener;
  let owner: Awaited<ReturnType<typeof orgOwner>>;
  let key: CryptoKeyPair;
  let nonce = '';

  beforeAll(async () => {
    server = await startTestServer();
    key = await generateKeyPair('RS256');
    // where every redirect points: a service the server must never be bounced to
    target = await countingListener();
    const away = redirectTo(`${target.base}/internal`);
    const idToken = async (base: string) =>
      new SignJWT({ nonce })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(`${base}/jwks-redirects`)
        .setAudience(CLIENT_ID)
        .setSubject('upstream-user')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key.privateKey);
    const discovery = (issuer: string) => ({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      userinfo_endpoint: `${issuer}/userinfo`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    upstream = await countingListener({
      '/redirecting/metadata': away,
      '/redirecting/.well-known/openid-configuration': away,
      '/token-redirects/.well-known/openid-configuration': json((b) => discovery(`${b}/token-redirects`)),
      '/token-redirects/token': away,
      '/jwks-redirects/.well-known/openid-configuration': json((b) => discovery(`${b}/jwks-redirects`)),
      '/jwks-redirects/token': (req, res, base) => {
        req.resume();
        void idToken(base).then((id_token) => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ access_token: 'at', token_type: 'Bearer', expires_in: 60, id_token }));
        });
      },
      '/jwks-redirects/jwks': away,
      '/oauth/token': json(() => ({ access_token: 'at', token_type: 'Bearer', expires_in: 60 })),
      '/oauth/userinfo': away,
      '/backchannel': away,
      '/huge': (_req, res) => {
        res.setHeader('content-type', 'application/samlmetadata+xml');
        res.end(Buffer.alloc(2 * 1024 * 1024, 'x'));
      },
    });
    owner = await orgOwner(server);
  });
  afterAll(async () => {
    await upstream?.close();
    await target?.close();
    await server?.stop();
  });

  /** The upstream sends the browser back with a code: our callback exchanges it; the failure it ends in. */
  async function callbackFailure(authUrl: string): Promise<string> {
    const url = new URL(authUrl);
    nonce = url.searchParams.get('nonce') ?? '';
    const params = new URLSearchParams({ code: 'upstream-code', state: url.searchParams.get('state')! });
    const res = await fetch(`${server.url}/idps/callback?${params}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(FAILURE);
    return back.searchParams.get('error') ?? '';
  }

  const createAsOwner = async (
    name: string,
    config: Parameters<typeof owner.idps.createIdentityProvider>[0]['config'],
  ) => (await owner.idps.createIdentityProvider({ organizationId: owner.orgId, name, config })).id;

  it('SAML metadata: the listener is reached, its redirect is refused, the target is not', async () => {
    const before = upstream.connections;
    const r = await refusal(
      owner.idps.createIdentityProvider({
        organizationId: owner.orgId,
        name: 'Metadata',
        config: samlAt(`${upstream.base}/redirecting/metadata`),
      }),
    );
    expect(r).toEqual({
      code: Code.FailedPrecondition,
      message: 'metadata_url answered a redirect (HTTP 302), which is not followed',
    });
    expect(upstream.connections).toBe(before + 1);
    expect(target.connections).toBe(0);
  });

  it('SAML metadata: a body over the size cap is refused', async () => {
    const r = await refusal(
      owner.idps.createIdentityProvider({
        organizationId: owner.orgId,
        name: 'Huge',
        config: samlAt(`${upstream.base}/huge`),
      }),
    );
    expect(r).toEqual({ code: Code.FailedPrecondition, message: 'metadata_url is larger than 1048576 bytes' });
  });

  it('OIDC discovery: a redirect is refused', async () => {
    const before = upstream.connections;
    const id = await createAsOwner('Discovery', oidcAt(`${upstream.base}/redirecting`));
    const r = await refusal(startSignIn(server, id));
    expect(r.code).toBe(Code.FailedPrecondition);
    expect(r.message).toContain('answered a redirect (HTTP 302), which is not followed');
    expect(upstream.connections).toBe(before + 1);
    expect(target.connections).toBe(0);
  });

  it('OIDC token endpoint: a redirect is refused, the sign-in fails', async () => {
    const id = await createAsOwner('Token', oidcAt(`${upstream.base}/token-redirects`));
    const started = await startSignIn(server, id);
    expect(await callbackFailure(started.nextStep.value as string)).toContain(
      `the upstream at ${upstream.base} answered a redirect (HTTP 302), which is not followed`,
    );
    expect(target.connections).toBe(0);
  });

  it('OIDC JWKS: a redirect is refused, the sign-in fails', async () => {
    const id = await createAsOwner('Keys', oidcAt(`${upstream.base}/jwks-redirects`));
    const started = await startSignIn(server, id);
    expect(await callbackFailure(started.nextStep.value as string)).toContain('answered a redirect (HTTP 302)');
    expect(target.connections).toBe(0);
  });

  it('OAuth userinfo: a redirect is refused, the sign-in fails', async () => {
    const id = await createAsOwner(
      'Userinfo',
      oauthAt(`${upstream.base}/oauth/token`, `${upstream.base}/oauth/userinfo`),
    );
    const started = await startSignIn(server, id);
    expect(await callbackFailure(started.nextStep.value as string)).toContain('answered a redirect (HTTP 302)');
    expect(target.connections).toBe(0);
  });

  it('back-channel logout: a redirect is refused, the token goes nowhere else', async () => {
    const before = upstream.connections;
    const sid = await signedInSession(server, `${upstream.base}/backchannel`);
    expect(await endSessionAndDeliver(server, sid)).toBe(
      'the back-channel logout URI answered a redirect (HTTP 302), which is not followed',
    );
    expect(upstream.connections).toBe(before + 1);
    expect(target.connections).toBe(0);
  });

  it('LDAP: a loopback directory is reached in development mode (the https server refuses it)', async () => {
    const before = upstream.connections;
    const id = await createAsOwner('Directory', ldapAt(`ldap://127.0.0.1:${upstream.port}`));
    const r = await refusal(ldapSignIn(server, id));
    // the listener speaks HTTP, not LDAP: the directory is unusable, but it was connected to
    expect(r.code).not.toBe('ok');
    expect(upstream.connections).toBeGreaterThan(before);
  });
});

// Client ID metadata documents go through the same fetcher: test/oidc/client-id-metadata.test.ts.
