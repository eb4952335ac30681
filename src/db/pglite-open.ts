import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { PGlite } from '@electric-sql/pglite';
import { copyEmbeddedSeed } from './embedded-seed';

/**
 * PostgreSQL's settings for the embedded database. Its defaults size shared buffers for a server
 * (128 MB, all of it resident once touched in PGlite's WebAssembly memory); one Portcullis instance
 * on PGlite holds a few megabytes of hot data, and the operating system's page cache still holds the
 * data folder's files behind the buffers.
 */
const EMBEDDED_CONF = ['shared_buffers=16MB', 'wal_buffers=1MB', 'maintenance_work_mem=16MB'];

// A data folder PostgreSQL has initialised holds PG_VERSION.
const initialised = (pgdata: string) => fs.existsSync(path.join(pgdata, 'PG_VERSION'));

/**
 * Creates a new data folder in a short-lived child process. initdb runs a second WebAssembly
 * PostgreSQL whose memory (~500 MB) a process never gives back to the system; in a child it is gone
 * when the child exits, and the server opens the folder at its idle size.
 */
async function initdbInChild(pgdata: string): Promise<void> {
  const script = [
    "const { PGlite } = await import('@electric-sql/pglite');",
    `const db = new PGlite(process.argv[1], { postgresqlconf: ${JSON.stringify(EMBEDDED_CONF)} });`,
    'await db.query("select 1");',
    'await db.close();',
  ].join('\n');
  // resolved from this package, wherever the child's working directory is
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, pgdata], {
    cwd: path.dirname(fileURLToPath(import.meta.url)),
    timeout: 120_000,
  });
}

/** The embedded database: in memory (tests, from a seed when given), or in `<dataDir>/pgdata`. */
export async function openEmbedded(dataDir: string, seed: Blob | undefined): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir === 'memory://') return new PGlite({ loadDataDir: seed, postgresqlconf: EMBEDDED_CONF });
  const pgdata = `${dataDir}/pgdata`;
  if (!initialised(pgdata) && !copyEmbeddedSeed(pgdata)) {
    fs.mkdirSync(pgdata, { recursive: true });
    await initdbInChild(pgdata);
  }
  return new PGlite(pgdata, { postgresqlconf: EMBEDDED_CONF });
}
