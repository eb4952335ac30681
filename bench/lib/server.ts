import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const PROFILE_DIR = path.join(ROOT, 'bench/results/profiles');

export interface BenchServer {
  url: string;
  port: number;
  pat: string;
  databaseUrl?: string;
  process: ChildProcess;
  /** ms from spawn to the first 200 from /readyz */
  startupMs: number;
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** 'postgres' creates a scratch database on baseUrl; 'pglite' uses a fresh data folder */
  storage: 'postgres' | 'pglite';
  baseUrl?: string;
  env?: Record<string, string>;
  /** the server's own address as PORTCULLIS_EXTERNAL_URL (the console's redirect URIs follow it) */
  externalUrlIsOwn?: boolean;
  profile?: string | false;
  /** another checkout to run instead of this one (`npm run bench:compare`) */
  root?: string;
}

/** Starts `portcullis start` in its own process, as a user would, and waits for /readyz. */
/** The Node flags `npm start` runs the server with (package.json's start script), so the bench measures that. */
function startFlags(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

export async function startServer(opts: ServerOptions): Promise<BenchServer> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-bench-'));
  let databaseUrl: string | undefined;
  let dbName: string | undefined;
  if (opts.storage === 'postgres') {
    dbName = `pc_bench_${randomBytes(4).toString('hex')}`;
    const admin = postgres(opts.baseUrl!, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${dbName}`);
    await admin.end();
    const u = new URL(opts.baseUrl!);
    u.pathname = `/${dbName}`;
    databaseUrl = u.toString();
  }
  // As a user runs it: the `portcullis` command, which runs the bundled build (bin/build.mjs).
  const nodeArgs = startFlags();
  if (opts.profile) {
    fs.mkdirSync(PROFILE_DIR, { recursive: true });
    // One folder per scenario; Node names each file after process and thread (the module loader's
    // thread writes a profile of its own, which a fixed name per pid would let overwrite the main one).
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${path.join(PROFILE_DIR, opts.profile)}`);
  }
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, 'bin/portcullis.mjs', 'start'], {
    cwd: opts.root ?? ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      PORTCULLIS_HOST: '127.0.0.1',
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_ADMIN_PAT_FILE: path.join(dataDir, 'admin.pat'),
      PORTCULLIS_LOG_LEVEL: 'warn',
      PORTCULLIS_ADMIN_PASSWORD: 'Bench-Passw0rd!',
      ...(opts.externalUrlIsOwn ? { PORTCULLIS_EXTERNAL_URL: `http://127.0.0.1:${port}` } : {}),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      // One process: its profile holds all the server's work, instead of spreading it over a profile per
      // cluster worker (and an idle one of the primary that only hands out connections).
      ...(opts.profile ? { PORTCULLIS_WORKERS: '1' } : {}),
      ...opts.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}): ${stderr.slice(-2000)}`);
    if (Date.now() > deadline) throw new Error('server did not become ready in 120 s');
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const startupMs = performance.now() - started;
  const pat = fs.readFileSync(path.join(dataDir, 'admin.pat'), 'utf8').trim();
  return {
    url,
    port,
    pat,
    databaseUrl,
    process: child,
    startupMs,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (dbName) {
        const admin = postgres(opts.baseUrl!, { max: 1, onnotice: () => {} });
        await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
        await admin.end();
      }
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process and of each of its children (the cluster workers), in KB, the process first. */
export function processTreeRssKb(pid: number): { pid: number; kb: number }[] {
  const tree: { pid: number; kb: number }[] = [];
  const visit = (p: number) => {
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      tree.push({ pid: p, kb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) });
      const children = fs.readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim();
      for (const c of children.split(/\s+/).filter(Boolean)) visit(Number(c));
    } catch {
      // the process ended meanwhile
    }
  };
  visit(pid);
  return tree;
}

/** Resident set size of a process and its children (the cluster workers), in MB. */
export function rssMb(pid: number): number {
  return Math.round(processTreeRssKb(pid).reduce((sum, p) => sum + p.kb, 0) / 1024);
}

/**
 * A load test is what the rate limits exist to stop: tens of thousands of token requests a second
 * from one address. As an operator would for a load test, the scenarios raise every limit to its
 * maximum through the settings API rather than turning them off, so each request still pays for its
 * counts (in the cluster primary) and the figures include that cost.
 */
export async function raiseRateLimits(server: BenchServer): Promise<void> {
  const max = 1_000_000_000;
  const res = await fetch(`${server.url}/portcullis.instance.v2.InstanceService/UpdateInstanceSettings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.pat}` },
    body: JSON.stringify({
      tokenRateLimitPerClient: max,
      tokenRateLimitPerAddress: max,
      loginRateLimitPerAddress: max,
      keysRateLimitPerAddress: max,
    }),
  });
  if (!res.ok) throw new Error(`raising the rate limits: ${res.status} ${await res.text()}`);
}

/** The resident set size of the largest single process of the tree (the one doing the work), in MB. */
export function largestProcessRssMb(pid: number): number {
  return Math.round(Math.max(0, ...processTreeRssKb(pid).map((p) => p.kb)) / 1024);
}
