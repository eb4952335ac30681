import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { Database } from './client';

export const MIGRATIONS_FOLDER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');

/**
 * Applies the committed drizzle-kit migrations. On PostgreSQL this runs under an advisory lock so
 * that replicas starting together apply them once.
 */
export async function migrate(database: Database): Promise<void> {
  await database.withLock('migrate', async (db) => {
    if (database.kind === 'pglite') {
      await migratePglite(db as any, { migrationsFolder: MIGRATIONS_FOLDER });
    } else {
      await migratePostgres(db as any, { migrationsFolder: MIGRATIONS_FOLDER });
    }
  });
}
