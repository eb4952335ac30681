import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';

const run = promisify(execFile);

/** PostgreSQL's own pgbench: on PATH, or where Debian's postgresql packages put it. */
export function findPgbench(): string | undefined {
  const dirs = (process.env.PATH ?? '').split(path.delimiter);
  const lib = '/usr/lib/postgresql';
  if (fs.existsSync(lib))
    for (const v of fs.readdirSync(lib).sort((a, b) => Number(b) - Number(a))) dirs.push(path.join(lib, v, 'bin'));
  return dirs.map((d) => path.join(d, 'pgbench')).find((f) => fs.existsSync(f));
}

/**
 * The database's own ceiling for small committed writes: `clients` pgbench connections each committing
 * one-row inserts (a bigserial key, a text and a time, like an event row without its payload) for
 * `seconds`, with synchronous_commit on, in a scratch database that is dropped afterwards. Answers the
 * transactions per second pgbench reports (without the time to connect).
 */
export async function insertCeiling(pgbench: string, baseUrl: string, clients: number, seconds: number) {
  const dbName = `pc_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-pgbench-'));
  await admin.unsafe(`create database ${dbName}`);
  try {
    const url = new URL(baseUrl);
    url.pathname = `/${dbName}`;
    const scratch = postgres(url.toString(), { max: 1, onnotice: () => {} });
    await scratch`
      create table bench_insert (id bigserial primary key, v text not null, at timestamptz not null default now())`;
    await scratch.end();
    const script = path.join(dir, 'insert.sql');
    fs.writeFileSync(script, 'insert into bench_insert (v) values (md5(random()::text));\n');
    const { stdout } = await run(
      pgbench,
      ['-n', '-M', 'prepared', '-f', script, '-c', String(clients), '-j', '2', '-T', String(seconds), url.toString()],
      { env: { ...process.env, PGOPTIONS: '-c synchronous_commit=on' } },
    );
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1];
    if (!tps) throw new Error(`pgbench printed no rate: ${stdout}`);
    return Math.round(Number(tps));
  } finally {
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
