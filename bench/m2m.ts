import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import http from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { basicAuth } from './lib/basic-auth';
import { type LoadResult, measure } from './lib/load';
import { startPeer } from './lib/peer';
import { raiseRateLimits, startServer } from './lib/server';
import { adminRpc } from './lib/sign-in';
import type { BenchOptions, Metric, ScenarioResult } from './lib/types';

const CONNECTIONS = 64;
const FORM = 'application/x-www-form-urlencoded';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

function metric(name: string, r: LoadResult, target?: number, peer?: LoadResult): Metric {
  return {
    name,
    value: r.rps,
    unit: 'req/s',
    ...(target ? { target: { op: '>=' as const, value: target } } : {}),
    ...(peer ? { peer: peer.rps } : {}),
    p50: r.p50,
    p95: r.p95,
    p99: r.p99,
    errors: r.errors,
  };
}

/**
 * Machine-to-machine grants on PostgreSQL with the default worker count, 64 keep-alive connections:
 * client credentials (JWT access tokens signed RS256 and ES256, opaque tokens), the JWT profile
 * (ES256 assertions, a fresh jti each), DPoP-bound client credentials (a fresh ES256 proof each)
 * and introspection of opaque machine tokens by an API
 * application. Then the same work on node-oidc-provider (bench/peer) for the ratios.
 */
export default async function m2m(opts: BenchOptions): Promise<ScenarioResult> {
  const notes: string[] = [];
  const server = await startServer({ storage: 'postgres', baseUrl: opts.databaseUrl, profile: opts.profile && 'm2m' });
  const agent = new http.Agent({ keepAlive: true });
  const ours: Record<string, LoadResult> = {};
  try {
    await raiseRateLimits(server);
    const rpc = adminRpc(agent, server);
    // Assertions name the issuer (the external URL), which need not be the address we connect to.
    const { issuer } = (await fetch(`${server.url}/.well-known/openid-configuration`).then((r) => r.json())) as {
      issuer: string;
    };
    const instance = await rpc('/portcullis.instance.v2.InstanceService/GetInstance', {});
    const orgId = instance.instance?.defaultOrganizationId ?? instance.defaultOrganizationId;
    const { projectId } = await rpc('/portcullis.project.v2.ProjectService/CreateProject', {
      organizationId: orgId,
      name: 'bench-m2m',
    });
    const api = await rpc('/portcullis.application.v2.ApplicationService/CreateApplication', {
      projectId,
      name: 'bench-api',
      api: {},
    });
    const apiAuth = basicAuth(api.api.clientId, api.api.clientSecret);
    const scope = `urn:service:iam:org:project:id:${projectId}:aud`;

    const machine = async (username: string, accessTokenType: string) => {
      const { id } = await rpc('/portcullis.user.v2.UserService/CreateUser', {
        organizationId: orgId,
        username,
        machine: { name: username, accessTokenType },
      });
      const secret = await rpc('/portcullis.user.v2.UserService/AddSecret', { userId: id });
      return { id, auth: basicAuth(secret.clientId, secret.clientSecret) };
    };
    const jwtUser = await machine('bench-jwt', 'ACCESS_TOKEN_TYPE_JWT');
    const opaqueUser = await machine('bench-opaque', 'ACCESS_TOKEN_TYPE_BEARER');
    const ccBody = `grant_type=client_credentials&scope=${encodeURIComponent(scope)}`;
    const tokenUrl = `${server.url}/oauth/v2/token`;
    const token = async (auth: string) => {
      const res = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': FORM, authorization: auth },
        body: ccBody,
      });
      if (!res.ok) throw new Error(`client credentials: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { access_token: string }).access_token;
    };
    const algOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString()).alg as string;
    const useAlgorithm = async (alg: 'RS256' | 'ES256') => {
      if (algOf(await token(jwtUser.auth)) === alg) return;
      const { keyId } = await rpc('/portcullis.instance.v2.InstanceService/CreateWebKey', {
        algorithm: `WEB_KEY_ALGORITHM_${alg}`,
      });
      await rpc('/portcullis.instance.v2.InstanceService/ActivateWebKey', { keyId });
      // Every worker picks up the new key when its key cache expires (seconds): wait until all sign with it.
      const deadline = Date.now() + 60_000;
      for (let ok = 0; ok < 20; ) {
        if (Date.now() > deadline) throw new Error(`workers did not switch to ${alg}`);
        if (algOf(await token(jwtUser.auth)) === alg) ok++;
        else {
          ok = 0;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    };
    const cc = (auth: string) =>
      measure({
        url: tokenUrl,
        method: 'POST',
        connections: CONNECTIONS,
        duration: opts.duration,
        headers: { 'content-type': FORM, authorization: auth },
        body: ccBody,
      });

    await useAlgorithm('RS256');
    opts.progress('m2m: client credentials, JWT access tokens, RS256');
    ours.ccRs = await cc(jwtUser.auth);
    await useAlgorithm('ES256');
    opts.progress('m2m: client credentials, JWT access tokens, ES256');
    ours.ccEs = await cc(jwtUser.auth);
    opts.progress('m2m: client credentials, opaque access tokens');
    ours.ccOpaque = await cc(opaqueUser.auth);

    // Before the phases that write a row per request (DPoP proofs, JWT profile assertions), whose aftermath
    // (PostgreSQL's autovacuum of those rows, the server's purge of the expired ones by m2m-cleanup every
    // minute) would otherwise share the cores with this read-only phase.
    const opaque = await Promise.all(Array.from({ length: 500 }, () => token(opaqueUser.auth)));
    let i = 0;
    opts.progress('m2m: introspection of opaque machine tokens');
    ours.introspect = await measure({
      url: `${server.url}/oauth/v2/introspect`,
      method: 'POST',
      connections: CONNECTIONS,
      duration: opts.duration,
      headers: { 'content-type': FORM, authorization: apiAuth },
      body: () => `token=${opaque[i++ % opaque.length]}`,
    });
    const check = await fetch(`${server.url}/oauth/v2/introspect`, {
      method: 'POST',
      headers: { 'content-type': FORM, authorization: apiAuth },
      body: `token=${opaque[0]}`,
    }).then((r) => r.json() as Promise<{ active: boolean }>);
    if (!check.active) notes.push('WARNING: the introspected tokens were not active');

    // DPoP-bound client credentials (RFC 9449): every request carries a fresh ES256 proof made by jose.
    // The proofs are signed before the load starts, so the load generator's signing does not take CPU
    // from the server while it is measured; the batch is bounded by what the phase can use (a proof
    // is accepted for 60 seconds after its iat, and each only once).
    const dpopKey = await generateKeyPair('ES256');
    const dpopJwk = await exportJWK(dpopKey.publicKey);
    const dpopCount = Math.min(150_000, Math.ceil((opts.duration + 2) * 3_500));
    const dpopProofs = await Promise.all(
      Array.from({ length: dpopCount }, () =>
        new SignJWT({
          jti: randomBytes(12).toString('base64url'),
          htm: 'POST',
          htu: `${issuer}/oauth/v2/token`,
          iat: Math.floor(Date.now() / 1000),
        })
          .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: dpopJwk })
          .sign(dpopKey.privateKey),
      ),
    );
    let nextProof = 0;
    opts.progress(`m2m: client credentials, DPoP-bound JWT access tokens, ES256 (${dpopCount} proofs signed ahead)`);
    ours.ccDpop = await measure({
      url: tokenUrl,
      method: 'POST',
      connections: CONNECTIONS,
      duration: opts.duration,
      headers: { 'content-type': FORM, authorization: jwtUser.auth },
      body: ccBody,
      // past the batch a proof repeats and is refused as a replay: counted as an error, not hidden
      requestHeaders: () => ({ dpop: dpopProofs[nextProof++ % dpopCount] }),
    });
    if (nextProof > dpopCount) notes.push(`WARNING: DPoP phase used ${nextProof} requests for ${dpopCount} proofs`);

    // JWT profile: an ES256 key uploaded for the user; every request carries a fresh assertion.
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { keyId } = await rpc('/portcullis.user.v2.UserService/AddKey', {
      userId: jwtUser.id,
      publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    const header = b64({ alg: 'ES256', kid: keyId, typ: 'JWT' });
    const assertion = () => {
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: jwtUser.id, sub: jwtUser.id, aud: issuer, iat: now, exp: now + 120 };
      const input = `${header}.${b64({ ...claims, jti: randomBytes(12).toString('base64url') })}`;
      const signature = sign('sha256', Buffer.from(input), { key: pair.privateKey, dsaEncoding: 'ieee-p1363' });
      return `${input}.${signature.toString('base64url')}`;
    };
    opts.progress('m2m: JWT profile (ES256 access tokens)');
    ours.jwtProfile = await measure({
      url: tokenUrl,
      method: 'POST',
      connections: CONNECTIONS,
      duration: opts.duration,
      headers: { 'content-type': FORM },
      body: () =>
        `grant_type=${encodeURIComponent(JWT_BEARER)}&scope=${encodeURIComponent(scope)}&assertion=${assertion()}`,
    });
  } finally {
    agent.destroy();
    await server.stop();
  }

  const theirs: Record<string, LoadResult> = {};
  const peer = await startPeer(opts.profile && 'm2m');
  try {
    const peerCc = (client: string) =>
      measure({
        url: `${peer.url}/token`,
        method: 'POST',
        connections: CONNECTIONS,
        duration: opts.duration,
        headers: { 'content-type': FORM, authorization: basicAuth(client, peer.secret) },
        body: 'grant_type=client_credentials&scope=api',
      });
    opts.progress('m2m peer: client credentials RS256, ES256, opaque');
    theirs.ccRs = await peerCc('cc-rs256');
    theirs.ccEs = await peerCc('cc-es256');
    theirs.ccOpaque = await peerCc('cc-opaque');
    const opaqueAuth = basicAuth('cc-opaque', peer.secret);
    const tokens = await Promise.all(
      Array.from({ length: 500 }, async () => {
        const res = await fetch(`${peer.url}/token`, {
          method: 'POST',
          headers: { 'content-type': FORM, authorization: opaqueAuth },
          body: 'grant_type=client_credentials&scope=api',
        });
        return ((await res.json()) as { access_token: string }).access_token;
      }),
    );
    let j = 0;
    opts.progress('m2m peer: introspection of opaque tokens');
    theirs.introspect = await measure({
      url: `${peer.url}/token/introspection`,
      method: 'POST',
      connections: CONNECTIONS,
      duration: opts.duration,
      headers: { 'content-type': FORM, authorization: opaqueAuth },
      body: () => `token=${tokens[j++ % tokens.length]}`,
    });
  } finally {
    await peer.stop();
  }

  notes.push(
    'PostgreSQL, default worker count (one per core), 64 keep-alive connections, ' +
      'load generator on the same 2-core machine',
    'machine tokens are self-contained (JWT or AES-GCM sealed opaque): issuing writes nothing; ' +
      'introspection checks cached user, credential and revocation list',
    'JWT profile: ES256 assertions with a fresh jti (replay rows written in batches); ' +
      'the peer has no JWT profile grant',
    'DPoP: ES256 proofs signed by jose before the phase (not during it); the server verifies each ' +
      'proof and records its jti once (batched inserts); the peer is not measured with DPoP',
  );
  return {
    scenario: 'm2m',
    metrics: [
      metric('client credentials, JWT access token, RS256', ours.ccRs, 2000, theirs.ccRs),
      metric('client credentials, JWT access token, ES256', ours.ccEs, 4000, theirs.ccEs),
      metric('client credentials, opaque access token', ours.ccOpaque, undefined, theirs.ccOpaque),
      metric('client credentials, DPoP-bound JWT access token (ES256 proof each)', ours.ccDpop),
      metric('JWT profile (ES256 assertion), JWT access token', ours.jwtProfile),
      metric('introspection of opaque machine tokens', ours.introspect, 6000, theirs.introspect),
    ],
    notes,
  };
}
