import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { type Config, ConfigError } from '../../config';
import { type Database, queryRows } from '../../db/client';
import { decryptWithMasterKey } from './encryption';
import { MASTER_KEY_FILE, readKeyFile } from './master-key';

/**
 * Settles `config.databaseFolder` (and the admin PAT file when it is the default one) for a PostgreSQL
 * database, before anything reads the master key. A database's files are those of its own folder
 * (`<data dir>/<host>-<port>-<database>`), so that a second database started from the same data folder
 * never overwrites the first one's admin PAT or takes its key. The master key belongs to the database
 * whose data it encrypts: a database that already holds sealed signing keys uses the folder whose
 * `master.key` opens them — its own, the data folder itself (where versions before the per-database
 * folders kept the files), or another database folder (the same database reached by another URL). When
 * none does, the start fails: a new key would leave every stored key unreadable. Returns the folder
 * when it is not the database's own, for the log.
 */
export async function settleDatabaseFolder(config: Config, database: Database): Promise<string | undefined> {
  const own = config.databaseFolder;
  if (database.kind !== 'postgres' || !own || config.masterKey) return undefined;
  const [row] = await queryRows<{ sealed: string }>(
    database.db,
    sql`select private_key_encrypted as sealed from web_keys limit 1`,
  );
  // Nothing sealed yet: a new database, whose key its own folder holds or will hold.
  if (!row) return undefined;
  for (const folder of candidateFolders(config.dataDir, own)) {
    const key = keyIn(folder);
    if (!key || !opens(key, row.sealed)) continue;
    if (folder === own) return undefined;
    if (config.adminPatFile === path.join(own, 'admin.pat')) config.adminPatFile = path.join(folder, 'admin.pat');
    config.databaseFolder = folder;
    return folder;
  }
  throw new ConfigError(
    `the database holds signing keys sealed with a master key that no ${MASTER_KEY_FILE} in ${config.dataDir} ` +
      `opens: set PORTCULLIS_MASTER_KEY to the key it was created with, or copy its ${MASTER_KEY_FILE} to ${own}`,
  );
}

/** The database's own folder first, then the data folder itself, then the other database folders. */
function candidateFolders(dataDir: string, own: string): string[] {
  let others: string[] = [];
  try {
    others = fs
      .readdirSync(dataDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(dataDir, e.name))
      .filter((dir) => dir !== own)
      .sort();
  } catch {
    // no data folder yet: only the database's own folder could hold its key
  }
  return [own, dataDir, ...others];
}

function keyIn(folder: string): Buffer | undefined {
  try {
    return readKeyFile(path.join(folder, MASTER_KEY_FILE));
  } catch {
    return undefined; // not a key: not this database's either
  }
}

function opens(key: Buffer, sealed: string): boolean {
  try {
    decryptWithMasterKey(key, sealed);
    return true;
  } catch {
    return false;
  }
}
