import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';

/**
 * A migrated, empty PGlite data directory, made once per test run by vitest's global setup: every
 * in-memory test server starts from it instead of running all migrations on a new cluster. Bootstrap
 * still runs per server, so each starts with its own instance, keys and admin.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  if (process.env.DATABASE_URL) return () => {};
  // The server's own open and migrate, so the seed holds exactly the schema a server's first start migrates to.
  const [{ openDatabase }, { migrate }] = await Promise.all([
    import('../../src/db/client'),
    import('../../src/db/migrate'),
  ]);
  const database = await openDatabase({ dataDir: 'memory://', queryTimeoutMs: 0 });
  await migrate(database);
  const pglite = (database.db as unknown as { $client: import('@electric-sql/pglite').PGlite }).$client;
  const dump = await pglite.dumpDataDir('none');
  await database.close();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'portcullis-seed-')), 'pgdata.tar');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteSeed', file);
  return () => fs.rmSync(path.dirname(file), { recursive: true, force: true });
}

let seed: Blob | undefined;
/** The migrated data directory for an in-memory server, when the global setup made one. */
export function pgliteSeed(): Blob | undefined {
  if (seed) return seed;
  const file = inject('pgliteSeed');
  if (!file || !fs.existsSync(file)) return undefined;
  seed = new Blob([fs.readFileSync(file)]);
  return seed;
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSeed?: string;
  }
}
