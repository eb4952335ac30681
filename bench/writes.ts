import http from 'node:http';
import os from 'node:os';
import { basicAuth } from './lib/basic-auth';
import { cpuSeconds } from './lib/cpu';
import { measure } from './lib/load';
import { findPgbench, insertCeiling } from './lib/pgbench';
import { type Counters, difference, rowsWritten, setAutovacuum, statsReader } from './lib/pg-stats';
import { raiseRateLimits, startServer } from './lib/server';
import { adminRpc, createPasswordUser, createWebApplication, fullFlow, request } from './lib/sign-in';
import type { BenchOptions, Metric, ScenarioResult } from './lib/types';

/**
 * What each operation writes to PostgreSQL, and how many writes one primary takes:
 *  1. for each operation (a sign-in, one with a refresh token, a refresh, a revocation, a client_credentials
 *     token, CreateUser): WARMUP of them, then OPS counted from CONCURRENCY clients → per operation the
 *     transactions committed, transaction ids (writing transactions), rows inserted/updated/deleted, WAL
 *     records, WAL bytes and full-page images, from PostgreSQL's own statistics (counts: machine-independent),
 *     and the CPU the server's processes and its database's backends spent (this machine's).
 *  2. CreateUser, the heaviest write path, at 32 and 64 clients → creates/s and the commits/s it drives;
 *  3. pgbench one-row inserts from 1, 32 and 64 clients (synchronous_commit on) → the database's own ceiling.
 * Transaction ids and WAL are counted for the whole PostgreSQL server: run it on one nothing else writes to
 * (the notes say when other databases committed meanwhile).
 */
const OPS = Number(process.env.BENCH_WRITES_OPS ?? 200);
const WARMUP = 20;
const CONCURRENCY = 8;
const USERS = 16;
const FORM = 'application/x-www-form-urlencoded';

interface Operation {
  name: string;
  /** clients at once (default CONCURRENCY): CreateUser writes concurrent requests in one transaction */
  clients?: number;
  run(i: number): Promise<unknown>;
}

export default async function writes(opts: BenchOptions): Promise<ScenarioResult> {
  const server = await startServer({ storage: 'postgres', baseUrl: opts.databaseUrl });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const stats = statsReader(opts.databaseUrl, server.databaseUrl!);
  const metrics: Metric[] = [];
  const notes: string[] = [];
  try {
    await raiseRateLimits(server);
    const rpc = adminRpc(agent, server);
    const { instance } = await rpc('/portcullis.instance.v2.InstanceService/GetInstance', {});
    const orgId = instance.defaultOrganizationId;
    const { projectId, client } = await createWebApplication(rpc, orgId);
    const usernames = Array.from({ length: USERS }, (_, i) => `bench-writes-${i}`);
    for (const u of usernames) await createPasswordUser(rpc, orgId, u);
    const machine = await rpc('/portcullis.user.v2.UserService/CreateUser', {
      organizationId: orgId,
      username: 'bench-writes-machine',
      machine: { name: 'bench-writes-machine', accessTokenType: 'ACCESS_TOKEN_TYPE_JWT' },
    });
    const secret = await rpc('/portcullis.user.v2.UserService/AddSecret', { userId: machine.id });

    const post = async (path: string, auth: string, form: string) => {
      const res = await request(agent, server.port, 'POST', path, { authorization: auth, 'content-type': FORM }, form);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body}`);
      return res.body ? JSON.parse(res.body) : undefined;
    };
    const clientAuth = basicAuth(client.id, client.secret);
    const audience = `urn:service:iam:org:project:id:${projectId}:aud`;
    const ccForm = `grant_type=client_credentials&scope=${encodeURIComponent(audience)}`;
    const createUser = (i: number) =>
      rpc('/portcullis.user.v2.UserService/CreateUser', {
        organizationId: orgId,
        username: `bench-created-${i}`,
        human: {
          profile: { givenName: 'Bench', familyName: `User ${i}` },
          email: { email: `bench-created-${i}@example.com`, isVerified: true },
        },
      });
    const signIn = (i: number, scope?: string) =>
      fullFlow(agent, server.port, client, usernames[i % USERS], scope ? { scope } : {});
    // Each refresh redeems a token of a sign-in with offline_access; each revocation revokes a token a refresh issued.
    const refreshTokens: string[] = [];
    const rotated: string[] = [];
    const operations: Operation[] = [
      { name: 'sign-in', run: (i) => signIn(i) },
      {
        name: 'sign-in with offline_access',
        run: async (i) => refreshTokens.push((await signIn(i, 'openid profile email offline_access')).refresh_token!),
      },
      {
        name: 'refresh-token grant',
        run: async (i) => {
          const form = `grant_type=refresh_token&refresh_token=${encodeURIComponent(refreshTokens[i])}`;
          rotated.push((await post('/oauth/v2/token', clientAuth, form)).refresh_token);
        },
      },
      {
        name: 'revocation of a refresh token',
        run: (i) =>
          post('/oauth/v2/revoke', clientAuth, `token=${encodeURIComponent(rotated[i])}&token_type_hint=refresh_token`),
      },
      {
        name: 'client_credentials token',
        run: () => post('/oauth/v2/token', basicAuth(secret.clientId, secret.clientSecret), ccForm),
      },
      { name: 'CreateUser', run: (i) => createUser(i) },
      { name: 'CreateUser, one client', clients: 1, run: (i) => createUser(OPS + WARMUP + i) },
    ];

    await setAutovacuum(server.databaseUrl!, false);
    // CPU seconds of the server's processes and of the PostgreSQL backends serving its database.
    const dbName = new URL(server.databaseUrl!).pathname.slice(1);
    const cpu = () => cpuSeconds(server.process.pid!, dbName);
    // What the server writes with nothing asked of it (its background jobs), subtracted from every window below.
    opts.progress('  writes: the idle server');
    const idleFrom = await stats.settled();
    const idleCpuFrom = cpu();
    const idleAt = performance.now();
    const idleTo = await stats.settled();
    const idleSeconds = (performance.now() - idleAt) / 1000;
    const idlePerSecond = scale(difference(idleTo, idleFrom), 1 / idleSeconds);
    const idleCpuTo = cpu();
    const idleCpuPerSecond = {
      server: (idleCpuTo.server - idleCpuFrom.server) / idleSeconds,
      database: (idleCpuTo.database - idleCpuFrom.database) / idleSeconds,
    };
    notes.push(
      `The idle server (background jobs) committed ${round(idlePerSecond.commits)} transactions/s and wrote ` +
        `${Math.round(idlePerSecond.walBytes)} WAL bytes/s; that, times each window's length, is subtracted.`,
    );
    const counted = async (work: () => Promise<void>) => {
      const before = await stats.settled();
      const cpuBefore = cpu();
      const at = performance.now();
      await work();
      const after = await stats.settled();
      const cpuAfter = cpu();
      const seconds = (performance.now() - at) / 1000;
      const raw = difference(after, before);
      // CPU seconds the window took beyond what the idle server spends in as long
      const cpuSpent = {
        server: cpuAfter.server - cpuBefore.server - idleCpuPerSecond.server * seconds,
        database: cpuAfter.database - cpuBefore.database - idleCpuPerSecond.database * seconds,
      };
      return { raw, net: minus(raw, scale(idlePerSecond, seconds)), cpu: cpuSpent };
    };

    for (const op of operations) {
      opts.progress(`  writes: ${op.name} (${WARMUP} to warm up, ${OPS} counted)`);
      const clients = op.clients ?? CONCURRENCY;
      await concurrently(clients, 0, WARMUP, op.run);
      const { raw, net, cpu: spent } = await counted(() => concurrently(clients, WARMUP, WARMUP + OPS, op.run));
      const per = scale(net, 1 / OPS);
      const name = (what: string) => `${op.name}: ${what}`;
      metrics.push(
        { name: name('transactions committed'), value: round(per.commits), unit: 'per op' },
        { name: name('transaction ids (writing transactions)'), value: round(per.xids), unit: 'per op' },
        { name: name('rows inserted + updated + deleted'), value: round(rowsWritten(per)), unit: 'per op' },
        { name: name('WAL records'), value: round(per.walRecords), unit: 'per op' },
        { name: name('WAL bytes'), value: Math.round(per.walBytes), unit: 'per op' },
        { name: name('WAL full-page images'), value: round(per.walFpi), unit: 'per op' },
        // CPU, unlike the counts, depends on the machine: what one operation costs each side on this one
        { name: name('PostgreSQL CPU'), value: round((spent.database * 1000) / OPS), unit: 'ms per op' },
        { name: name('server CPU'), value: round((spent.server * 1000) / OPS), unit: 'ms per op' },
      );
      notes.push(`${op.name}, rows per op: ${tableBreakdown(per)}${disturbances(raw)}`);
    }

    await setAutovacuum(server.databaseUrl!, true);
    for (const connections of [32, 64]) {
      opts.progress(`  writes: CreateUser from ${connections} clients`);
      let next = 1_000_000 * connections;
      let load: Awaited<ReturnType<typeof measure>> | undefined;
      let seconds = 0;
      const { raw, net } = await counted(async () => {
        const t0 = performance.now();
        load = await measure({
          url: `${server.url}/portcullis.user.v2.UserService/CreateUser`,
          method: 'POST',
          connections,
          duration: opts.duration,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${server.pat}` },
          body: () =>
            JSON.stringify({
              organizationId: orgId,
              username: `bench-load-${next}`,
              human: {
                profile: { givenName: 'Bench', familyName: `Load ${next}` },
                email: { email: `bench-load-${next++}@example.com`, isVerified: true },
              },
            }),
        });
        seconds = (performance.now() - t0) / 1000;
      });
      metrics.push(
        {
          name: `CreateUser from ${connections} clients`,
          value: load!.rps,
          unit: '/s',
          p50: load!.p50,
          p95: load!.p95,
          p99: load!.p99,
          errors: load!.errors,
        },
        {
          name: `CreateUser from ${connections} clients: commits`,
          value: Math.round(net.commits / seconds),
          unit: '/s',
        },
        {
          name: `CreateUser from ${connections} clients: WAL`,
          value: round(net.walBytes / seconds / 1e6),
          unit: 'MB/s',
        },
      );
      if (disturbances(raw)) notes.push(`CreateUser from ${connections} clients${disturbances(raw)}`);
    }
    notes.push(
      `Load average (1 min) after the CreateUser load: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores.`,
    );
  } finally {
    agent.destroy();
    await stats.close();
    await server.stop();
  }

  const pgbench = findPgbench();
  if (!pgbench) notes.push('pgbench was not found: the database ceiling was not measured.');
  else {
    // One client shows what a single commit waits for (the WAL flush); 32 and 64 how far concurrent commits share it.
    for (const clients of [1, 32, 64]) {
      opts.progress(`  writes: pgbench one-row inserts from ${clients} client(s)`);
      const tps = await insertCeiling(pgbench, opts.databaseUrl, clients, opts.duration);
      metrics.push({ name: `pgbench one-row insert transactions, ${clients} client(s)`, value: tps, unit: '/s' });
    }
    notes.push(`Load average (1 min) after pgbench: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores.`);
  }
  notes.push(
    `${OPS} of each operation counted after ${WARMUP} to warm up, from ${CONCURRENCY} clients unless one is named, ` +
      `with autovacuum off for the tables while counting; ${USERS} users sign in in turn. ` +
      "A sign-in is the oidc scenario's flow (authorize, login name, password, callback, code " +
      'exchange, userinfo). CreateUser: a human user with a verified email, no password. pgbench: ' +
      'synchronous_commit on, prepared statements, 2 threads, in a scratch database.',
    'Full-page images: the first change of a page after a checkpoint writes the whole page to the WAL, so they ' +
      'depend on where the window falls between checkpoints.',
  );
  return { scenario: 'writes', metrics, notes };
}

/** Runs `run(i)` for i in [from, to) from `clients` clients; the first failure fails the scenario. */
async function concurrently(
  clients: number,
  from: number,
  to: number,
  run: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < to; i = next++) await run(i);
    }),
  );
}

function scale(c: Counters, f: number): Counters {
  const tables: Counters['tables'] = {};
  for (const [name, [i, u, d]] of Object.entries(c.tables)) tables[name] = [i * f, u * f, d * f];
  return {
    commits: c.commits * f,
    rollbacks: c.rollbacks * f,
    xids: c.xids * f,
    walRecords: c.walRecords * f,
    walFpi: c.walFpi * f,
    walBytes: c.walBytes * f,
    checkpoints: c.checkpoints * f,
    otherCommits: c.otherCommits * f,
    autovacuums: c.autovacuums * f,
    tables,
  };
}

/** The server's own writes in a window: what was counted less what the idle server writes in that time. */
function minus(c: Counters, idle: Counters): Counters {
  return {
    ...c,
    commits: c.commits - idle.commits,
    xids: c.xids - idle.xids,
    walRecords: c.walRecords - idle.walRecords,
    walFpi: c.walFpi - idle.walFpi,
    walBytes: c.walBytes - idle.walBytes,
  };
}

function tableBreakdown(per: Counters): string {
  const rows = Object.entries(per.tables)
    .map(([name, [i, u, d]]) => ({ name, i, u, d, total: i + u + d }))
    .filter((t) => t.total >= 0.005)
    .sort((a, b) => b.total - a.total);
  if (!rows.length) return 'none';
  return rows
    .map((t) => {
      const parts = [
        t.i ? `${round(t.i)} ins` : '',
        t.u ? `${round(t.u)} upd` : '',
        t.d ? `${round(t.d)} del` : '',
      ].filter(Boolean);
      return `${t.name} ${parts.join(' + ')}`;
    })
    .join(', ');
}

/** What else happened in a window that the counts would include. */
function disturbances(raw: Counters): string {
  const seen = [
    raw.checkpoints ? `${raw.checkpoints} checkpoint(s)` : '',
    raw.autovacuums ? `${raw.autovacuums} autovacuum/autoanalyze run(s)` : '',
    // The bench's own readings and autovacuum's visits to other databases commit a few there too: not worth a word.
    raw.otherCommits > 5 ? `${raw.otherCommits} commits in other databases` : '',
    raw.rollbacks ? `${raw.rollbacks} rollbacks` : '',
  ].filter(Boolean);
  return seen.length ? ` (during the window: ${seen.join(', ')})` : '';
}

const round = (n: number) => Math.round(n * 100) / 100;
