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
        'PostgreSQL, default worker count (one per core); the totals sum the primary and its workers, sampled every ' +
          '250 ms; with PORTCULLIS_WORKERS=1 (or one core) the primary is the one process and no worker is listed',
      ],
    };
  } finally {
    await server.stop();
  }
}
