import { eq, inArray, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase, queryRows } from '../../src/db/client';
import { MAX_PREPARED_PARAMETERS } from '../../src/db/prepared';
import { instances } from '../../src/db/schema/index';
import { freshDatabase, onPostgres } from '../helpers/database';

/**
 * The pool prepares the statements drizzle builds (src/db/prepared.ts): a lookup is parsed and planned
 * once per connection and then runs in one round trip. With one connection, PostgreSQL's own list of the
 * session's prepared statements shows which were.
 */
describe.skipIf(!onPostgres)('prepared statements on PostgreSQL', () => {
  let database: Database | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await database?.close();
    await drop?.();
  });

  async function open(preparedStatements: boolean): Promise<Database> {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    database = await openDatabase({
      databaseUrl: fresh.url,
      dataDir: 'memory://',
      poolSize: 1,
      preparedStatements,
      queryTimeoutMs: 10_000,
    });
    await database.db.execute(sql`create table instances (id text primary key)`);
    return database;
  }

  const prepared = async (db: Database['db']) =>
    (await queryRows<{ statement: string }>(db, sql`select statement from pg_prepared_statements`)).map(
      (r) => r.statement,
    );

  it('prepares a lookup, also inside a transaction, and not a statement whose length follows a list', async () => {
    const { db } = await open(true);
    await db.select({ id: instances.id }).from(instances).where(eq(instances.id, 'a'));
    await db.transaction(async (tx) => {
      await tx.update(instances).set({ id: 'b' }).where(eq(instances.id, 'c'));
    });
    const many = Array.from({ length: MAX_PREPARED_PARAMETERS + 1 }, (_, i) => `id-${i}`);
    await db.select({ id: instances.id }).from(instances).where(inArray(instances.id, many));
    const statements = await prepared(db);
    expect(statements.some((s) => /^select .* from "instances" where "instances"."id" = \$1$/.test(s))).toBe(true);
    expect(statements.some((s) => s.startsWith('update "instances"'))).toBe(true);
    expect(statements.some((s) => s.includes(`$${MAX_PREPARED_PARAMETERS + 1}`))).toBe(false);
  });

  it('prepares nothing when prepared statements are off (behind a transaction-mode pooler)', async () => {
    const { db } = await open(false);
    await db.select({ id: instances.id }).from(instances).where(eq(instances.id, 'a'));
    await db.transaction(async (tx) => {
      await tx.select({ id: instances.id }).from(instances).where(eq(instances.id, 'b'));
    });
    expect(await prepared(db)).toEqual([]);
  });
});
