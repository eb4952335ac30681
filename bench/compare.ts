import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { basicAuth } from './lib/basic-auth';
import { cpuSeconds } from './lib/cpu';
import { type LoadSpec, measure } from './lib/load';
import { type BenchServer, raiseRateLimits, ROOT, startServer } from './lib/server';
import { adminRpc } from './lib/sign-in';

/**
 * `npm run bench:compare -- <git ref> [--rounds N]`: this checkout against another commit on the same
 * machine at the same time. A shared virtual machine's speed moves by half within an hour, so two
 * `npm run bench` reports taken at different times compare hosts as much as code. This starts both
 * builds at once (each its own process tree on its own scratch PostgreSQL database), then alternates
 * short load phases between them (A B, B A, …) on paths that need no browser, and reports per path the
 * median throughput and the median CPU per request of each build's server and PostgreSQL backends.
 * Each phase lasts BENCH_DURATION seconds (default 3) at 64 connections, after a one-second warm-up.
 */
const args = process.argv.slice(2);
const ref = args.find((a) => !a.startsWith('--'));
const roundsArg = args.indexOf('--rounds');
const rounds = roundsArg >= 0 ? Number(args[roundsArg + 1]) : 6;
if (!ref || !Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write(
    'Usage: npm run bench:compare -- <git ref> [--rounds N]   (BENCH_DURATION: seconds per phase)\n',
  );
  process.exit(2);
}
const duration = Number(process.env.BENCH_DURATION ?? 3);
const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const log = (line: string) => process.stderr.write(`${line}\n`);

const other = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-compare-'));
const git = (...a: string[]) => execFileSync('git', a, { cwd: ROOT, encoding: 'utf8' }).trim();
const commit = git('rev-parse', '--short', `${ref}^{commit}`);
log(`compare: ${git('rev-parse', '--short', 'HEAD')} (this checkout) against ${commit} in ${other}`);
git('worktree', 'add', '--detach', other, commit);
try {
  // npm ci refuses lock files that list platform packages the registry does not serve (see .ci/run)
  const npm = (cmd: string) =>
    execFileSync('npm', [cmd, '--no-audit', '--no-fund'], { cwd: other, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    npm('ci');
  } catch {
    npm('install');
  }
  await run();
} finally {
  git('worktree', 'remove', '--force', other);
}

/** A path under load; every phase runs it at 64 connections for `duration` seconds. */
type Path = Omit<LoadSpec, 'connections' | 'duration'>;

interface Build {
  label: string;
  server: BenchServer;
  dbName: string;
  paths: Record<string, Path>;
  results: Record<string, { rps: number[]; server: number[]; database: number[] }>;
}

async function run() {
  const builds: Build[] = [];
  const agent = new http.Agent({ keepAlive: true });
  try {
    for (const [label, root] of [
      ['this', undefined],
      [commit, other],
    ] as const) {
      log(`compare: starting ${label}`);
      const server = await startServer({ storage: 'postgres', baseUrl, root });
      builds.push({
        label,
        server,
        dbName: new URL(server.databaseUrl!).pathname.slice(1),
        paths: await preparePaths(agent, server),
        results: {},
      });
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [...builds].reverse() : builds;
      for (const name of Object.keys(builds[0].paths)) {
        for (const b of order) {
          const before = cpuSeconds(b.server.process.pid!, b.dbName);
          const r = await measure({ ...b.paths[name], connections: 64, duration, warmup: 1 });
          const after = cpuSeconds(b.server.process.pid!, b.dbName);
          const per = (s: number) => (s * 1e6) / Math.max(1, r.requests);
          b.results[name] ??= { rps: [], server: [], database: [] };
          const slot = b.results[name];
          slot.rps.push(r.rps);
          slot.server.push(per(after.server - before.server));
          slot.database.push(per(after.database - before.database));
          if (r.errors) log(`compare: ${b.label} ${name}: ${r.errors} errors`);
        }
      }
      log(`compare: round ${round + 1}/${rounds} done`);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const [a, b] = builds;
    const cell = (x: Build, name: string) => {
      const r = x.results[name];
      const rps = Math.round(median(r.rps)).toLocaleString('en-US');
      return `${rps} | ${Math.round(median(r.server))} | ${Math.round(median(r.database))}`;
    };
    const out = [
      `Medians of ${rounds} alternating phases of ${duration} s, 64 connections; CPU in µs per request.`,
      '',
      `| path | ${a.label} req/s | server | PostgreSQL | ${b.label} req/s | server | PostgreSQL ` +
        `| server CPU ${a.label} / ${b.label} |`,
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...Object.keys(a.paths).map((name) => {
        const ratio = median(a.results[name].server) / median(b.results[name].server);
        return `| ${name} | ${cell(a, name)} | ${cell(b, name)} | ${ratio.toFixed(2)} |`;
      }),
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    agent.destroy();
    for (const b of builds) await b.server.stop();
  }
}

/** Through each build's own API: rate limits raised, an API application, opaque and JWT machine users. */
async function preparePaths(agent: http.Agent, server: BenchServer): Promise<Record<string, Path>> {
  await raiseRateLimits(server);
  const rpc = adminRpc(agent, server);
  const instance = await rpc('/portcullis.instance.v2.InstanceService/GetInstance', {});
  const organizationId = instance.instance?.defaultOrganizationId ?? instance.defaultOrganizationId;
  const { projectId } = await rpc('/portcullis.project.v2.ProjectService/CreateProject', {
    organizationId,
    name: 'compare',
  });
  const api = await rpc('/portcullis.application.v2.ApplicationService/CreateApplication', {
    projectId,
    name: 'compare-api',
    api: {},
  });
  const machine = async (username: string, accessTokenType: string) => {
    const { id } = await rpc('/portcullis.user.v2.UserService/CreateUser', {
      organizationId,
      username,
      machine: { name: username, accessTokenType },
    });
    const secret = await rpc('/portcullis.user.v2.UserService/AddSecret', { userId: id });
    return basicAuth(secret.clientId, secret.clientSecret);
  };
  const opaque = await machine('compare-opaque', 'ACCESS_TOKEN_TYPE_BEARER');
  const jwt = await machine('compare-jwt', 'ACCESS_TOKEN_TYPE_JWT');
  const form = 'application/x-www-form-urlencoded';
  const tokenUrl = `${server.url}/oauth/v2/token`;
  const scope = `urn:service:iam:org:project:id:${projectId}:aud`;
  const ccBody = `grant_type=client_credentials&scope=${encodeURIComponent(scope)}`;
  const cc = (auth: string): Path => ({
    url: tokenUrl,
    method: 'POST',
    headers: { authorization: auth, 'content-type': form },
    body: ccBody,
  });
  const tokens = await Promise.all(
    Array.from({ length: 500 }, async () => {
      const res = await fetch(tokenUrl, {
        method: 'POST',
        headers: { authorization: opaque, 'content-type': form },
        body: ccBody,
      });
      return ((await res.json()) as { access_token: string }).access_token;
    }),
  );
  let next = 0;
  return {
    'GetInstance (PAT)': {
      url: `${server.url}/portcullis.instance.v2.InstanceService/GetInstance`,
      method: 'POST',
      headers: { authorization: `Bearer ${server.pat}`, 'content-type': 'application/json' },
      body: '{}',
    },
    'client credentials, opaque': cc(opaque),
    'client credentials, JWT (default key)': cc(jwt),
    'introspection, machine tokens': {
      url: `${server.url}/oauth/v2/introspect`,
      method: 'POST',
      headers: { authorization: basicAuth(api.api.clientId, api.api.clientSecret), 'content-type': form },
      body: () => `token=${tokens[next++ % tokens.length]}`,
    },
  };
}
