import http from 'node:http';
import { generate } from 'otplib';
import { basicAuth } from './lib/basic-auth';
import { measure } from './lib/load';
import { startPeer } from './lib/peer';
import { raiseRateLimits, startServer } from './lib/server';
import { adminRpc, createPasswordUser, createWebApplication, fullFlow } from './lib/sign-in';
import type { BenchOptions, ScenarioResult } from './lib/types';

/**
 * The OpenID Provider on PostgreSQL, server in its own process (its default worker count):
 *  1. complete authorization-code flows: authorize → login page → login name → password (argon2id)
 *     → callback → code exchange (client_secret_basic) → userinfo, from FLOW_CLIENTS concurrent
 *     "browsers" → flows/s; then the same for users with an authenticator app (password, then the
 *     TOTP page and its code)
 *  2. userinfo with an opaque access token → requests/s
 *  3. introspection of an opaque access token by an API client of the project (Basic) → requests/s
 * Targets (2 cores): ≥ 150 flows/s, ≥ 6,000 userinfo/s, ≥ 6,000 introspection/s.
 */
const USERS = Number(process.env.BENCH_OIDC_USERS ?? 64);
const FLOW_CLIENTS = Number(process.env.BENCH_OIDC_FLOW_CLIENTS ?? 24);
/**
 * A TOTP code is accepted once per 30-second step (and ±1 step), so each user signs in at most a few
 * times per half minute: enough users that the flows never wait for the clock.
 */
const TOTP_USERS = Number(process.env.BENCH_OIDC_TOTP_USERS ?? 600);

export default async function run(opts: BenchOptions): Promise<ScenarioResult> {
  const server = await startServer({
    storage: 'postgres',
    baseUrl: opts.databaseUrl,
    profile: opts.profile ? 'oidc' : false,
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  try {
    await raiseRateLimits(server);
    const rpc = adminRpc(agent, server);
    const { instance } = await rpc('/portcullis.instance.v2.InstanceService/GetInstance', {});
    const orgId = instance.defaultOrganizationId;
    const { projectId, client } = await createWebApplication(rpc, orgId);
    const api = await rpc('/portcullis.application.v2.ApplicationService/CreateApplication', {
      projectId,
      name: 'bench-api',
      api: { authMethodType: 'API_AUTH_METHOD_TYPE_BASIC' },
    });
    const apiBasic = basicAuth(api.api.clientId, api.api.clientSecret);
    const addUser = (username: string) => createPasswordUser(rpc, orgId, username);
    const usernames: string[] = [];
    for (let i = 0; i < USERS; i++) {
      await addUser(`bench-oidc-${i}`);
      usernames.push(`bench-oidc-${i}`);
    }
    const flow = async (username: string) => (await fullFlow(agent, server.port, client, username)).access_token;
    // warm-up: every user once (first logins also re-hash nothing; keys and caches get loaded)
    for (let i = 0; i < usernames.length; i += 8) await Promise.all(usernames.slice(i, i + 8).map(flow));
    opts.progress(`  flows: ${FLOW_CLIENTS} concurrent browsers for ${opts.duration}s`);
    const flows = await runFlows(opts.duration, (i) => flow(usernames[i % usernames.length]));
    const lastToken = flows.lastToken;

    opts.progress(`  flows with TOTP: ${TOTP_USERS} users with an authenticator app`);
    const totpUsers: TotpUser[] = [];
    for (let i = 0; i < TOTP_USERS; i += 16) {
      const batch = Array.from({ length: Math.min(16, TOTP_USERS - i) }, (_, k) => `bench-totp-${i + k}`);
      totpUsers.push(
        ...(await Promise.all(
          batch.map(async (username) => {
            const userId = await addUser(username);
            const { secret } = await rpc('/portcullis.user.v2.UserService/RegisterTOTP', { userId });
            const user: TotpUser = { username, secret, lastStep: 0 };
            const code = await nextCode(user, 'now');
            await rpc('/portcullis.user.v2.UserService/VerifyTOTPRegistration', { userId, code });
            return user;
          }),
        )),
      );
    }
    const totpFlow = async (i: number) => {
      // the next user whose authenticator has a code not used yet
      for (let k = 0; k < totpUsers.length; k++) {
        const user = totpUsers[(i + k) % totpUsers.length];
        // the code is taken now, so that two browsers never send one user's codes out of order
        if (stepOf(Date.now()) + 1 > user.lastStep)
          return (await fullFlow(agent, server.port, client, user.username, { totpCode: await nextCode(user) }))
            .access_token;
      }
      throw new Error('every TOTP user has used the codes of this step');
    };
    const totpFlows = await runFlows(opts.duration, totpFlow);

    opts.progress('  userinfo');
    const userinfo = await measure({
      url: `${server.url}/oidc/v1/userinfo`,
      connections: 64,
      duration: opts.duration,
      headers: { authorization: `Bearer ${lastToken}` },
    });
    opts.progress('  introspection');
    const introspection = await measure({
      url: `${server.url}/oauth/v2/introspect`,
      connections: 64,
      duration: opts.duration,
      method: 'POST',
      headers: { authorization: apiBasic, 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${encodeURIComponent(lastToken)}`,
    });
    // The peer's userinfo, measured the same way (one user's access token, 64 connections) while
    // the Portcullis server sits idle.
    opts.progress('  peer: userinfo');
    const peer = await startPeer(opts.profile ? 'oidc' : false);
    let peerUserinfo: Awaited<ReturnType<typeof measure>>;
    try {
      peerUserinfo = await measure({
        url: `${peer.url}/me`,
        connections: 64,
        duration: opts.duration,
        headers: { authorization: `Bearer ${peer.userinfoTokens[0]}` },
      });
    } finally {
      await peer.stop();
    }
    return {
      scenario: 'oidc',
      metrics: [
        {
          name: 'authorization-code flows (login, exchange, userinfo)',
          value: flows.perSecond,
          unit: 'flows/s',
          target: { op: '>=', value: 150 },
          ...flows.latency,
        },
        {
          name: 'authorization-code flows with password + TOTP',
          value: totpFlows.perSecond,
          unit: 'flows/s',
          ...totpFlows.latency,
        },
        {
          name: 'userinfo (opaque token)',
          value: userinfo.rps,
          unit: 'req/s',
          target: { op: '>=', value: 6000 },
          peer: peerUserinfo.rps,
          p50: userinfo.p50,
          p95: userinfo.p95,
          p99: userinfo.p99,
          errors: userinfo.errors,
        },
        {
          name: 'introspection (opaque token, Basic)',
          value: introspection.rps,
          unit: 'req/s',
          target: { op: '>=', value: 6000 },
          p50: introspection.p50,
          p95: introspection.p95,
          p99: introspection.p99,
          errors: introspection.errors,
        },
      ],
      notes: [
        `${USERS} users, ${FLOW_CLIENTS} concurrent flows; each flow is 8 HTTP requests and one argon2id verification.`,
        `With TOTP: ${TOTP_USERS} users with an authenticator app; 2 more requests (the TOTP page and its ` +
          'code) and one HMAC-SHA1 check.',
      ],
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

/** FLOW_CLIENTS concurrent browsers running flows for `seconds`: the rate, the latencies, a token. */
async function runFlows(seconds: number, flow: (i: number) => Promise<string>) {
  let done = 0;
  let failed = 0;
  let lastToken = '';
  const deadline = performance.now() + seconds * 1000;
  const t0 = performance.now();
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: FLOW_CLIENTS }, async (_, w) => {
      for (let i = w; performance.now() < deadline; i += FLOW_CLIENTS) {
        const s = performance.now();
        try {
          lastToken = await flow(i);
          done++;
          latencies.push(performance.now() - s);
        } catch {
          failed++;
        }
      }
    }),
  );
  const perSecond = Math.round((done / ((performance.now() - t0) / 1000)) * 10) / 10;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0);
  return { perSecond, lastToken, latency: { p50: pct(50), p95: pct(95), p99: pct(99), errors: failed } };
}

interface TotpUser {
  username: string;
  secret: string;
  /** the last 30-second step whose code this user sent: each is accepted once */
  lastStep: number;
}

const stepOf = (ms: number) => Math.floor(ms / 30_000);

/**
 * The code of the first step after the user's last one that the server still accepts (±1 step), or
 * with 'now' of the current step at the earliest: a registration then survives a step boundary passing
 * while the machine is busy (the previous step's code would be two steps old by the time it arrives).
 */
async function nextCode(user: TotpUser, earliest: 'previous' | 'now' = 'previous'): Promise<string> {
  const now = stepOf(Date.now());
  const step = Math.max(earliest === 'now' ? now : now - 1, user.lastStep + 1);
  user.lastStep = step;
  return generate({ secret: user.secret, epoch: step * 30 });
}
