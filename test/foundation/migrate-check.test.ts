import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/client';
import { migrate } from '../../src/db/migrate';
import { freshDatabase } from '../helpers/database';
import { runCli } from '../helpers/process';

/** `portcullis migrate --check`: what a deployment pipeline asks before it rolls out a version. */
describe('portcullis migrate --check', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-check-'));
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function check(env: Record<string, string>) {
    const run = runCli(['migrate', '--check'], env);
    return { code: await run.exited, out: run.stdout(), err: run.stderr() };
  }

  it('exits 1 naming the pending migrations of an empty database, 0 once they are applied', async () => {
    const db = await freshDatabase();
    drops.push(db.drop);
    const env: Record<string, string> = db.url ? { DATABASE_URL: db.url } : { PORTCULLIS_DATA_DIR: dataDir };
    const before = await check(env);
    expect(before.code).toBe(1);
    expect(before.out).toMatch(/migration\(s\) pending: 0000_init, /);
    // it changed nothing: an embedded database was not even created
    if (!db.url) expect(fs.existsSync(path.join(dataDir, 'pgdata'))).toBe(false);

    const database = await openDatabase({
      databaseUrl: db.url,
      dataDir,
      queryTimeoutMs: loadConfig({}).dbQueryTimeoutMs,
    });
    await migrate(database);
    await database.close();
    const after = await check(env);
    expect(after).toMatchObject({ code: 0, out: 'The database has every migration of this version.\n' });
  }, 120_000);

  it('exits 2 with one line when the database cannot be reached', async () => {
    const r = await check({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', PORTCULLIS_DB_CONNECT_TIMEOUT: '1' });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^portcullis migrate --check: cannot reach PostgreSQL at 127\.0\.0\.1:1\/none/);
  }, 60_000);
});
