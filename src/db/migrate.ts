import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { sql } from 'drizzle-orm';
import { type Database, queryRows } from './client';

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

interface JournalEntry {
  when: number;
  tag: string;
}

/**
 * The committed migrations this database has not applied yet, by name (drizzle/meta/_journal.json order).
 * As drizzle's migrator decides: a migration is applied when the newest recorded one is at least as recent.
 */
export async function pendingMigrations(database: Database): Promise<string[]> {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as {
    entries: JournalEntry[];
  };
  const [exists] = await queryRows<{ found: boolean }>(
    database.db,
    sql`select to_regclass('drizzle.__drizzle_migrations') is not null as found`,
  );
  let newest = -1;
  if (exists.found) {
    const [row] = await queryRows<{ at: string | null }>(
      database.db,
      sql`select max(created_at)::text as at from drizzle.__drizzle_migrations`,
    );
    newest = row.at === null ? -1 : Number(row.at);
  }
  return journal.entries.filter((e) => e.when > newest).map((e) => e.tag);
}
