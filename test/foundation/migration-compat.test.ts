import fs from 'node:fs';
import path from 'node:path';
import { sql, TransactionRollbackError } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client';
import { MIGRATIONS_FOLDER, migrate } from '../../src/db/migrate';
import { freshDatabase } from '../helpers/database';
import {
  journalTags,
  type Migration,
  migrationsSince,
  releaseSnapshot,
  releases,
  scanMigrations,
  schemaProblems,
} from '../helpers/migration-compat';

/**
 * A rolling upgrade runs the previous release next to this version, after this version's migrations ran: the
 * previous release's queries must keep working on the new schema (CONTRIBUTING.md, "Change the database schema").
 */
const previous = releases().at(-1)!;
const snapshot = releaseSnapshot(previous);
const since = migrationsSince(previous);
/** Nullable text columns of users the release knew and no migration since removed: what the attacks below break. */
const [a, b, c] = Object.values(snapshot.tables['public.users'].columns)
  .filter((col) => col.type === 'text' && !col.notNull && !scanMigrations(since).contracted.has(`users.${col.name}`))
  .map((col) => col.name);

describe(`the previous release (${previous.version}) on this version's schema`, () => {
  let database: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    database = await openDatabase({ databaseUrl: fresh.url, dataDir: 'memory://', queryTimeoutMs: 10_000 });
    await migrate(database);
  });
  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  it('drizzle/releases.json lists released versions in order, each ending at a migration of the journal', () => {
    const tags = journalTags();
    const version = (v: string) => v.split('.').reduce((n, part) => n * 1000 + Number(part), 0);
    const { version: current } = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, '../package.json'), 'utf8'));
    for (const [i, r] of releases().entries()) {
      expect(r.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(tags).toContain(r.lastMigration);
      if (i === 0) continue;
      const before = releases()[i - 1];
      expect(version(r.version)).toBeGreaterThan(version(before.version));
      expect(tags.indexOf(r.lastMigration)).toBeGreaterThanOrEqual(tags.indexOf(before.lastMigration));
    }
    expect(version(previous.version)).toBeLessThanOrEqual(version(current));
  });

  it('no migration since the release drops, renames or tightens anything without the contract marker', () => {
    expect(scanMigrations(since).problems).toEqual([]);
  });

  it('finds every table and column it knew, with its type, and its SELECTs and INSERTs work', async () => {
    expect(await schemaProblems(database.db, snapshot, scanMigrations(since).contracted)).toEqual([]);
  });

  it('accepts an additive migration: a release before 0021 runs beside the two nullable columns it added', async () => {
    const before = { version: '0.0.0', lastMigration: '0020_claims_parameter' };
    expect(scanMigrations(migrationsSince(before).slice(0, 1)).problems).toEqual([]);
    // later migrations' marked changes of org_domains (0023) are excused as for the release
    const { contracted } = scanMigrations(migrationsSince(before));
    const problems = await schemaProblems(database.db, releaseSnapshot(before), contracted);
    expect(problems.filter((p) => p.startsWith('org_domains'))).toEqual([]);
  });

  /**
   * Applies `statements` as a migration would, checks, and undoes them: what they break, beyond what the test
   * above reports on its own.
   */
  async function problemsAfter(statements: string[], contracted?: Set<string>): Promise<string[]> {
    const check = async (apply: string[]) => {
      let problems: string[] = [];
      await database.db
        .transaction(async (tx) => {
          for (const s of apply) await tx.execute(sql.raw(s));
          problems = await schemaProblems(tx as any, snapshot, contracted);
          tx.rollback();
        })
        .catch((err) => {
          if (!(err instanceof TransactionRollbackError)) throw err;
        });
      return problems;
    };
    const before = await check([]);
    return (await check(statements)).filter((p) => !before.includes(p));
  }

  it.each([
    ['drops a column', `alter table users drop column ${a}`, `users.${a}: the column is gone`],
    ['renames a column', `alter table users rename column ${a} to renamed`, `users.${a}: the column is gone`],
    ['drops a table', 'drop table user_metadata', 'user_metadata: the table is gone'],
    ['renames a table', 'alter table user_metadata rename to metadata', 'user_metadata: the table is gone'],
    [
      "changes a column's type",
      'alter table users alter column failed_password_attempts type bigint',
      'users.failed_password_attempts: its type changed from integer to bigint',
    ],
    [
      'adds a NOT NULL column without a default',
      'alter table users add column required_later text not null',
      'users.required_later: a new NOT NULL column without a default',
    ],
    ['makes a nullable column NOT NULL', `alter table users alter column ${c} set not null`, `users.${c}: became`],
    ['drops a default', 'alter table users alter column state drop default', 'users.state: lost its default'],
    [
      'drops a unique index',
      'drop index device_authorizations_user_code_idx',
      'device_authorizations: the unique index device_authorizations_user_code_idx is gone',
    ],
    [
      'adds a check on a column the release writes',
      `alter table users add constraint users_lower check (${c} = lower(${c}))`,
      'users: a new check constraint users_lower',
    ],
  ])('fails when a migration %s, naming it', async (_what, statement, named) => {
    expect((await problemsAfter([statement])).join('\n')).toContain(named);
  });

  it("fails when the release's INSERT is refused by something the catalog comparison does not see", async () => {
    const problems = await problemsAfter([
      `create function refuse() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`,
      'create trigger refuse before insert on user_metadata for each row execute function refuse()',
    ]);
    expect(problems).toEqual([`user_metadata: the previous release's INSERT fails: refused`]);
  });

  it('lets the second step of a two-step change drop what it marks, and only that', async () => {
    const migration = `-- contract: unused since the release\nALTER TABLE "users" DROP COLUMN "${a}";`;
    const { problems, contracted } = scanMigrations([{ tag: '0099_drop_a_column', sql: migration }]);
    expect(problems).toEqual([]);
    expect([...contracted]).toEqual([`users.${a}`]);
    expect(await problemsAfter([`alter table users drop column ${a}`], contracted)).toEqual([]);
    const more = await problemsAfter([`alter table users drop column ${a}, drop column ${b}`], contracted);
    expect(more.join('\n')).toContain(`users.${b}: the column is gone`);
    expect(more.join('\n')).not.toContain(`users.${a}:`);
  });
});

describe('the scan of migrations since the release', () => {
  const scan = (text: string) => scanMigrations([{ tag: '0099_next', sql: text }] satisfies Migration[]);

  it.each([
    ['DROP TABLE "user_metadata" CASCADE;', 'drops a table'],
    ['ALTER TABLE "users" DROP COLUMN "nick_name";', 'drops a column'],
    ['ALTER TABLE "users" RENAME COLUMN "nick_name" TO "nickname";', 'renames'],
    ['ALTER TABLE "users" ALTER COLUMN "failed_otp_attempts" SET DATA TYPE bigint;', "changes a column's type"],
    ['alter table users alter column failed_otp_attempts type bigint using failed_otp_attempts::bigint', 'type'],
    ['ALTER TABLE "users" ALTER COLUMN "email" SET NOT NULL;', 'makes a column NOT NULL'],
    ['ALTER TABLE "users" ALTER COLUMN "state" DROP DEFAULT;', "drops a column's default"],
    ['DROP INDEX "users_username_uq";', 'drops an index'],
    ['ALTER TABLE "instances" DROP CONSTRAINT "instances_singleton_unique";', 'drops a constraint'],
  ])('names the file of %s', (statement, does) => {
    const [problem, ...rest] = scan(
      `ALTER TABLE "users" ADD COLUMN "x" text;--> statement-breakpoint\n${statement}`,
    ).problems;
    expect(rest).toEqual([]);
    expect(problem).toContain('0099_next.sql: ');
    expect(problem).toContain(does);
  });

  it.each([
    ['ALTER TABLE "users" RENAME COLUMN "nick_name" TO "nickname";', ['users.nick_name']],
    ['ALTER TABLE "user_metadata" RENAME TO "metadata";', ['user_metadata']],
    ['DROP TABLE IF EXISTS "user_metadata", "public"."user_keys" CASCADE;', ['user_metadata', 'user_keys']],
    ['DROP INDEX IF EXISTS "users_username_uq";', ['users_username_uq']],
    ['ALTER TABLE "public"."users" ALTER COLUMN "email" SET NOT NULL;', ['users.email']],
    ['ALTER TABLE users ADD CONSTRAINT users_email_lower CHECK (email = lower(email));', ['users_email_lower']],
  ])('lets a marked %s remove what it names', (statement, names) => {
    const { problems, contracted } = scan(`-- contract: the release before no longer uses it\n${statement}`);
    expect(problems).toEqual([]);
    expect([...contracted]).toEqual(names);
  });

  it('reads past words in comments and refuses a marker on a statement that removes nothing', () => {
    expect(scan('-- a rename or a DROP COLUMN comes later\nALTER TABLE "users" ADD COLUMN "x" text;').problems).toEqual(
      [],
    );
    expect(scan('-- contract: cleaning up\nUPDATE "users" SET "state" = \'ACTIVE\';').problems).toEqual([
      `0099_next.sql: "UPDATE "users" SET "state" = 'ACTIVE';" is marked contract but names nothing it removes`,
    ]);
  });

  it("over this repository's own history flags only 0010, which replaced the username index in place", () => {
    const tags = journalTags();
    const upTo0021 = tags.slice(0, tags.indexOf('0021_org_domain_validation') + 1);
    const all = upTo0021.map((tag) => ({
      tag,
      sql: fs.readFileSync(path.join(MIGRATIONS_FOLDER, `${tag}.sql`), 'utf8'),
    }));
    expect(scanMigrations(all).problems).toEqual([
      `0010_username_scope.sql: "DROP INDEX "users_username_uq";" drops an index, which the previous release still ` +
        'uses (see CONTRIBUTING.md)',
    ]);
  });
});
