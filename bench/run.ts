import fs from 'node:fs';
import path from 'node:path';
import { machineInfo } from './lib/machine';
import { writeReport } from './lib/report';
import type { BenchOptions, ScenarioResult } from './lib/types';
import postgres from 'postgres';
import { build } from '../bin/build.mjs';

/**
 * `npm run bench` runs every scenario; `npm run bench -- <scenario> [--profile]` one of them.
 * Each scenario starts what it needs (scratch PostgreSQL databases, server processes), measures for a
 * fixed time at fixed concurrencies on loopback, and returns its figures; the report goes to
 * bench/results/<date>-<commit>.md/.json/.svg.
 */
const ALL = ['startup', 'memory', 'users', 'oidc', 'm2m', 'import', 'migrate', 'console', 'writes'];
const PEER_SETUP = fs.existsSync(path.join(import.meta.dirname, 'peer/setup.md'))
  ? fs.readFileSync(path.join(import.meta.dirname, 'peer/setup.md'), 'utf8')
  : 'No peer scenario ran.';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(
    'Usage: npm run bench -- [scenario ...] [--profile]\n' +
      `Scenarios: ${ALL.join(', ')} (default: all)\n` +
      '--profile writes CPU profiles of the server to bench/results/profiles/\n' +
      'DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server for scratch databases; ' +
      'BENCH_DURATION sets seconds per load phase (default 10).\n',
  );
  process.exit(0);
}
const chosen = args.filter((a) => !a.startsWith('--'));
const unknown = chosen.filter((s) => !ALL.includes(s));
if (unknown.length) {
  process.stderr.write(`unknown scenario: ${unknown.join(', ')}\nscenarios: ${ALL.join(', ')}\n`);
  process.exit(2);
}
const scenarios = chosen.length ? chosen : ALL;
const started = Date.now();
const opts: BenchOptions = {
  profile: args.includes('--profile'),
  databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  duration: Number(process.env.BENCH_DURATION ?? 10),
  progress: (line) => {
    const elapsed = Math.round((Date.now() - started) / 1000);
    process.stderr.write(
      `[${String(Math.floor(elapsed / 60)).padStart(2, '0')}:${String(elapsed % 60).padStart(2, '0')}] ${line}\n`,
    );
  },
};

// The server runs as users run it, from the bundle; build it first so no scenario times the build.
await build();
const results: ScenarioResult[] = [];
let failed = 0;
for (const [i, name] of scenarios.entries()) {
  opts.progress(`scenario ${i + 1}/${scenarios.length}: ${name}`);
  await settleDatabase();
  try {
    const mod = await import(path.join(import.meta.dirname, `${name}.ts`));
    const result: ScenarioResult = await mod.default(opts);
    results.push(result);
    for (const m of result.metrics)
      opts.progress(
        `  ${m.name}: ${m.value} ${m.unit}${m.peer ? ` (peer ${m.peer}, ${(m.value / m.peer).toFixed(2)}×)` : ''}`,
      );
  } catch (err) {
    failed++;
    opts.progress(`  ${name} failed: ${(err as Error).stack ?? err}`);
    results.push({ scenario: name, metrics: [], notes: [`failed: ${(err as Error).message}`] });
  }
}
/**
 * A CHECKPOINT before each scenario: PostgreSQL then writes out what the previous scenario (or an
 * earlier run — the import writes a million events) left dirty now, instead of during the next
 * scenario's measurement. Needs a superuser; without one the scenario simply goes on.
 */
async function settleDatabase(): Promise<void> {
  const sql = postgres(opts.databaseUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await sql`checkpoint`;
  } catch {
    // not a superuser, or no PostgreSQL: nothing to settle
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const file = writeReport(machineInfo(), results, PEER_SETUP);
opts.progress(`report: ${path.relative(process.cwd(), file)} (${Math.round((Date.now() - started) / 1000)} s)`);
process.exit(failed ? 1 : 0);
