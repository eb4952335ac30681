import fs from 'node:fs';
import path from 'node:path';
import { connectOptionsOf } from '../../db/connect-options';

/**
 * `portcullis migrate --check`, for deployment pipelines: 0 when the database named by the settings has every
 * migration of this version, 1 (naming them) when some are pending, 2 when it cannot tell. It reads only:
 * the schema is changed by the first `portcullis start` of the new version.
 */
export async function checkMigrations(): Promise<number> {
  const { ConfigError, loadConfig } = await import('../../config');
  const { connectWithRetry, DatabaseUnreachableError } = await import('../../db/client');
  const { MIGRATIONS_FOLDER, pendingMigrations } = await import('../../db/migrate');
  const fail = (message: string) => {
    process.stderr.write(`portcullis migrate --check: ${message}\n`);
    return 2;
  };
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) return fail(err.message);
    throw err;
  }
  const report = (pending: string[]) => {
    if (pending.length === 0) {
      process.stdout.write('The database has every migration of this version.\n');
      return 0;
    }
    process.stdout.write(`${pending.length} migration(s) pending: ${pending.join(', ')}\n`);
    return 1;
  };
  // An embedded database that was never started is an empty one; opening it would create it.
  if (!config.databaseUrl && (config.inMemory || !fs.existsSync(path.join(config.dataDir, 'pgdata')))) {
    const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8'));
    return report(journal.entries.map((e: { tag: string }) => e.tag));
  }
  let database: Awaited<ReturnType<typeof connectWithRetry>>;
  try {
    // it changes nothing: a database that does not exist is reported, with the command that creates it
    database = await connectWithRetry(connectOptionsOf(config, { poolSize: 1, createMissing: false }));
  } catch (err) {
    if (err instanceof DatabaseUnreachableError) return fail(err.message);
    throw err;
  }
  try {
    return report(await pendingMigrations(database));
  } finally {
    await database.close();
  }
}
