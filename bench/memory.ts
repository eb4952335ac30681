import { measure } from './lib/load';
import { processTreeRssKb, startServer } from './lib/server';
import type { BenchOptions, ScenarioResult } from './lib/types';

/** Resident memory of one sample of the server: all processes, the primary, and the largest worker, in MB. */
interface Sample {
  total: number;
  primary: number;
  worker: number;
}

function sample(pid: number): Sample {
  const [primary, ...workers] = processTreeRssKb(pid).map((p) => p.kb / 1024);
  const total = (primary ?? 0) + workers.reduce((sum, w) => sum + w, 0);
  return { total, primary: primary ?? 0, worker: Math.max(0, ...workers) };
}

/**
 * Resident memory of the server (primary + workers) idle, and while serving authenticated RPCs; besides
 * the sum, the primary's and the largest worker's own, since each process is what a limit applies to.
 */
export default async function memory(opts: BenchOptions): Promise<ScenarioResult> {
  const embedded = await embeddedDefault(opts);
  const result = await underLoad(opts);
  return { ...result, metrics: [...embedded, ...result.metrics] };
}

/**
 * The embedded default as a newcomer runs it (`npm start`: PGlite, default worker count): the whole
 * process tree idle after start, and at its peak while a browser loads the console (the shell, its
 * script and stylesheet, compressed, as Chromium asks for them) ten times over.
 */
async function embeddedDefault(opts: BenchOptions) {
  opts.progress('memory: embedded default (PGlite), idle and loading the console');
  const server = await startServer({ storage: 'pglite' });
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const idle = sample(server.process.pid!).total;
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, sample(server.process.pid!).total);
    }, 100);
    const headers = { 'accept-encoding': 'gzip, deflate, br, zstd' };
    for (let i = 0; i < 10; i++) {
      const shell = await (await fetch(`${server.url}/ui/console/`, { headers })).text();
      for (const m of shell.matchAll(/(?:href|src)="(\/ui\/console\/assets\/[^"]+)"/g))
        await (await fetch(`${server.url}${m[1]}`, { headers })).arrayBuffer();
    }
    clearInterval(sampler);
    peak = Math.max(peak, sample(server.process.pid!).total);
    return [
      { name: 'PGlite: RSS idle (all processes)', value: Math.round(idle), unit: 'MB', target: le(250) },
      { name: 'PGlite: RSS peak loading the console', value: Math.round(peak), unit: 'MB', target: le(400) },
    ];
  } finally {
    await server.stop();
  }
}

const le = (value: number) => ({ op: '<=' as const, value });

async function underLoad(opts: BenchOptions): Promise<ScenarioResult> {
  const server = await startServer({
    storage: 'postgres',
    baseUrl: opts.databaseUrl,
    profile: opts.profile && 'memory',
  });
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const idle = sample(server.process.pid!);
    const peak = { ...idle };
    const sampler = setInterval(() => {
      const now = sample(server.process.pid!);
      for (const k of ['total', 'primary', 'worker'] as const) peak[k] = Math.max(peak[k], now[k]);
    }, 250);
    opts.progress('memory: GetInstance with a PAT, 64 connections');
    const load = await measure({
      url: `${server.url}/portcullis.instance.v2.InstanceService/GetInstance`,
      method: 'POST',
      connections: 64,
      duration: opts.duration,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.pat}` },
      body: '{}',
    });
    clearInterval(sampler);
    const mb = (v: number) => Math.round(v);
    return {
      scenario: 'memory',
      metrics: [
        { name: 'RSS idle (all processes)', value: mb(idle.total), unit: 'MB' },
        { name: 'RSS peak under load', value: mb(peak.total), unit: 'MB' },
        { name: 'RSS of the primary, idle', value: mb(idle.primary), unit: 'MB' },
        {
          name: 'RSS of the primary, peak under load',
          value: mb(peak.primary),
          unit: 'MB',
          target: { op: '<=', value: 80 },
        },
        { name: 'RSS of the largest worker, idle', value: mb(idle.worker), unit: 'MB' },
        {
          name: 'RSS of the largest worker, peak under load',
          value: mb(peak.worker),
          unit: 'MB',
          target: { op: '<=', value: 150 },
        },
        {
          name: 'GetInstance (PAT auth) with 64 connections',
          value: load.rps,
          unit: 'req/s',
          target: { op: '>=', value: 12000 },
          p50: load.p50,
          p95: load.p95,
          p99: load.p99,
          errors: load.errors,
        },
      ],
      notes: [
        'PGlite lines: the embedded default as `npm start` runs it. The rest: PostgreSQL, ' +
          'default worker count (one per core); the totals sum the primary and its workers, sampled every ' +
          '250 ms; with PORTCULLIS_WORKERS=1 (or one core) the primary is the one process and no worker is listed',
      ],
    };
  } finally {
    await server.stop();
  }
}
