import { startServer } from './lib/server';
import type { BenchOptions, ScenarioResult } from './lib/types';

/** Time from process start to the first 200 from /readyz, on PGlite and on PostgreSQL (first start and restart). */
export default async function startup(opts: BenchOptions): Promise<ScenarioResult> {
  const metrics = [];
  for (const storage of ['pglite', 'postgres'] as const) {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      opts.progress(`startup: ${storage} run ${i + 1}/3`);
      const server = await startServer({ storage, baseUrl: opts.databaseUrl, env: { PORTCULLIS_WORKERS: '1' } });
      times.push(server.startupMs);
      await server.stop();
    }
    times.sort((a, b) => a - b);
    metrics.push({
      name: `first start to /readyz (${storage})`,
      value: Math.round(times[1]),
      unit: 'ms',
      // the embedded default is what a newcomer's `npm start` runs
      ...(storage === 'pglite' ? { target: { op: '<=' as const, value: 5000 } } : {}),
    });
  }
  return {
    scenario: 'startup',
    metrics,
    notes: ['median of 3 first starts on an empty database (migrations + bootstrap included), one worker process'],
  };
}
