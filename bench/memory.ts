import { measure } from './lib/load';
import { rssMb, startServer } from './lib/server';
import type { BenchOptions, ScenarioResult } from './lib/types';

/** Resident memory of the server (primary + workers) idle, and while serving authenticated RPCs. */
export default async function memory(opts: BenchOptions): Promise<ScenarioResult> {
  const server = await startServer({
    storage: 'postgres',
    baseUrl: opts.databaseUrl,
    profile: opts.profile && 'memory',
  });
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rssMb(server.process.pid!);
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(server.process.pid!));
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
    return {
      scenario: 'memory',
      metrics: [
        { name: 'RSS idle (all processes)', value: idle, unit: 'MB' },
        { name: 'RSS peak under load', value: peak, unit: 'MB' },
        {
          name: 'GetInstance (PAT auth) with 64 connections',
          value: load.rps,
          unit: 'req/s',
          p50: load.p50,
          p95: load.p95,
          p99: load.p99,
          errors: load.errors,
        },
      ],
      notes: ['PostgreSQL, default worker count (one per core); RSS summed over the primary and its workers'],
    };
  } finally {
    await server.stop();
  }
}
