import fs from 'node:fs';
import path from 'node:path';
import { sql, TransactionRollbackError } from 'drizzle-orm';
import { type Db, queryRows } from '../../src/db/client';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate';

/**
 * The N/N+1 rule of CONTRIBUTING.md ("Change the database schema"), checked: during a rolling upgrade the
 * previous release's code runs against this version's schema, so everything that code reads and writes
 * must still be there and accept its writes.
 */

export interface Release {
  version: string;
  /** the journal tag of the newest migration the release contains */
  lastMigration: string;
}

/** drizzle/releases.json, oldest first: each released version and the last migration it ships. */
export function releases(folder = MIGRATIONS_FOLDER): Release[] {
  return JSON.parse(fs.readFileSync(path.join(folder, 'releases.json'), 'utf8')) as Release[];
}

export function journalTags(folder = MIGRATIONS_FOLDER): string[] {
  const journal = JSON.parse(fs.readFileSync(path.join(folder, 'meta/_journal.json'), 'utf8'));
  return journal.entries.map((e: { tag: string }) => e.tag);
}

/** The migrations this version adds to a release, in the order they run. */
export function migrationsSince(release: Release, folder = MIGRATIONS_FOLDER): Migration[] {
  const tags = journalTags(folder);
  const last = tags.indexOf(release.lastMigration);
  if (last < 0) throw new Error(`releases.json: ${release.version} names ${release.lastMigration}, not in the journal`);
  return tags.slice(last + 1).map((tag) => ({ tag, sql: fs.readFileSync(path.join(folder, `${tag}.sql`), 'utf8') }));
}

export interface SnapshotColumn {
  name: string;
  type: string;
  typeSchema?: string;
  notNull: boolean;
  primaryKey: boolean;
  default?: unknown;
  identity?: unknown;
  generated?: unknown;
}

interface SnapshotTable {
  name: string;
  columns: Record<string, SnapshotColumn>;
  indexes: Record<string, { name: string; isUnique: boolean }>;
  uniqueConstraints: Record<string, { name: string }>;
  compositePrimaryKeys: Record<string, { name: string }>;
  checkConstraints?: Record<string, { name: string }>;
  foreignKeys: Record<string, { name: string }>;
}

export interface Snapshot {
  tables: Record<string, SnapshotTable>;
}

/** The schema a release's code was built for: drizzle-kit's snapshot after its last migration. */
export function releaseSnapshot(release: Release, folder = MIGRATIONS_FOLDER): Snapshot {
  const idx = release.lastMigration.slice(0, 4);
  return JSON.parse(fs.readFileSync(path.join(folder, `meta/${idx}_snapshot.json`), 'utf8')) as Snapshot;
}

export interface Migration {
  tag: string;
  sql: string;
}

/** The marker of a statement that is the second step of a two-step change (CONTRIBUTING.md). */
const CONTRACT_MARKER = /--\s*contract:\s*\S/i;
const NAME = String.raw`(?:"(?:[^"]|"")+"|[\w$]+)`;
const QUALIFIED = String.raw`(?:${NAME}\s*\.\s*)?(${NAME})`;

const CONTRACTING: { does: string; pattern: RegExp }[] = [
  { does: 'drops a table', pattern: /\bDROP\s+TABLE\b/i },
  { does: 'drops a column', pattern: /\bDROP\s+COLUMN\b/i },
  { does: 'renames', pattern: /\bRENAME\b/i },
  {
    does: "changes a column's type",
    pattern: new RegExp(String.raw`\bALTER\s+(?:COLUMN\s+)?${NAME}\s+(?:SET\s+DATA\s+)?TYPE\b`, 'i'),
  },
  { does: 'makes a column NOT NULL', pattern: /\bSET\s+NOT\s+NULL\b/i },
  { does: "drops a column's default", pattern: /\bDROP\s+DEFAULT\b/i },
  { does: 'drops an index', pattern: /\bDROP\s+INDEX\b/i },
  { does: 'drops a constraint', pattern: /\bDROP\s+CONSTRAINT\b/i },
];

/**
 * Statements of `migrations` that take away something the previous release uses, unless marked as the second
 * step of a two-step change; and what the marked ones may take away (tables, `table.column`s, index and
 * constraint names), which the schema comparison then excuses.
 */
export function scanMigrations(migrations: Migration[]): { problems: string[]; contracted: Set<string> } {
  const problems: string[] = [];
  const contracted = new Set<string>();
  for (const { tag, sql: text } of migrations) {
    for (const statement of text.split('--> statement-breakpoint')) {
      const code = statement.replace(/--.*$/gm, '');
      const marked = CONTRACT_MARKER.test(statement);
      const first = code.trim().split('\n')[0].slice(0, 100);
      if (marked) {
        const names = namesTouched(code);
        if (names.length === 0) problems.push(`${tag}.sql: "${first}" is marked contract but names nothing it removes`);
        for (const name of names) contracted.add(name);
        continue;
      }
      for (const { does, pattern } of CONTRACTING) {
        if (pattern.test(code)) {
          problems.push(`${tag}.sql: "${first}" ${does}, which the previous release still uses (see CONTRIBUTING.md)`);
        }
      }
    }
  }
  return { problems, contracted };
}

function unquote(name: string): string {
  return name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name.toLowerCase();
}

/** The tables, `table.column`s, indexes and constraints a statement drops, renames or alters. */
function namesTouched(code: string): string[] {
  const names: string[] = [];
  const all = (pattern: string) => [...code.matchAll(new RegExp(pattern, 'gi'))].map((m) => unquote(m[1]));
  const table = new RegExp(String.raw`\bALTER\s+TABLE\s+(?:ONLY\s+)?(?:IF\s+EXISTS\s+)?${QUALIFIED}`, 'i').exec(code);
  if (table) {
    const t = unquote(table[1]);
    const actions = code.slice(table.index + table[0].length);
    const verbs = String.raw`DROP\s+COLUMN\s+(?:IF\s+EXISTS\s+)?|ALTER\s+(?:COLUMN\s+)?|RENAME\s+(?:COLUMN\s+)?`;
    const columns = String.raw`\b(?:${verbs})(${NAME})`;
    for (const c of [...actions.matchAll(new RegExp(columns, 'gi'))].map((m) => unquote(m[1]))) {
      if (c !== 'constraint') names.push(c === 'to' ? t : `${t}.${c}`);
    }
    names.push(...all(String.raw`\b(?:DROP|ADD|RENAME)\s+CONSTRAINT\s+(?:IF\s+EXISTS\s+)?(${NAME})`));
  }
  const dropped = /\bDROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?([^;]*)/i.exec(code)?.[1] ?? '';
  names.push(...[...dropped.matchAll(new RegExp(QUALIFIED, 'g'))].map((m) => unquote(m[1])).filter(notKeyword));
  names.push(...all(String.raw`\bDROP\s+INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+EXISTS\s+)?${QUALIFIED}`));
  names.push(
    ...all(String.raw`\bCREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?(${NAME})`),
  );
  return names;
}

function notKeyword(name: string): boolean {
  return !['cascade', 'restrict'].includes(name);
}

const CONSTRAINT_KINDS: Record<string, string> = {
  c: 'check constraint',
  f: 'foreign key',
  u: 'unique constraint',
  x: 'exclusion constraint',
  p: 'primary key',
  i: 'unique index',
};

/**
 * What the code of the release `snapshot` describes would find broken in the schema of `db`, one line naming
 * the table or column each. Compares the catalog with the snapshot, then runs that code's queries for real: a
 * SELECT of every column it knew and an INSERT of only the columns it must write, inside a transaction that
 * is rolled back. `contracted` (from `scanMigrations`) is excused.
 */
export async function schemaProblems(db: Db, snapshot: Snapshot, contracted = new Set<string>()): Promise<string[]> {
  return rolledBack(db, async (tx) => {
    const live = await liveColumns(tx);
    const constraints = await liveConstraints(tx);
    const problems: string[] = [];
    for (const [i, table] of Object.values(snapshot.tables).entries()) {
      const t = table.name;
      if (contracted.has(t)) continue;
      const columns = live.get(t);
      if (!columns) {
        problems.push(`${t}: the table is gone (dropped or renamed); the previous release reads and writes it`);
        continue;
      }
      const known = Object.values(table.columns).filter((c) => !contracted.has(`${t}.${c.name}`));
      const types = await snapshotTypes(tx, `compat_probe_${i}`, known);
      problems.push(
        ...known.flatMap((col) => columnProblem(`${t}.${col.name}`, col, types.get(col.name)!, columns.get(col.name))),
        ...[...columns]
          .filter(([name, now]) => !table.columns[name] && now.notNull && !now.hasDefault)
          .map(([name]) => `${t}.${name}: a new NOT NULL column without a default; the previous release leaves it out`),
        ...constraintProblems(
          table,
          constraints.filter((c) => c.table === t),
          contracted,
        ),
        ...(await previousQueries(tx, t, known)),
      );
    }
    return problems;
  });
}

/** What became of a column the previous release knew. */
function columnProblem(where: string, col: SnapshotColumn, type: string, now: LiveColumn | undefined): string[] {
  if (!now) return [`${where}: the column is gone (dropped or renamed); the previous release reads and writes it`];
  if (type !== now.type) return [`${where}: its type changed from ${type} to ${now.type}`];
  if (now.notNull && !col.notNull) return [`${where}: became NOT NULL; the previous release may write null`];
  if (now.notNull && !now.hasDefault && writesItself(col)) {
    return [`${where}: lost its default; the previous release leaves it out of its INSERTs`];
  }
  return [];
}

/** Unique indexes the previous release relies on, and new constraints that could refuse its writes. */
function constraintProblems(table: SnapshotTable, present: LiveConstraint[], contracted: Set<string>): string[] {
  const t = table.name;
  const known = snapshotConstraintNames(table);
  const added = present.filter((c) => !known.has(c.name) && !contracted.has(c.name));
  const gone = [...uniqueNames(table)].filter((name) => !contracted.has(name) && !present.some((c) => c.name === name));
  return [
    ...added
      .filter((c) => c.expression || c.columns.some((name) => table.columns[name]))
      .map((c) => `${t}: a new ${CONSTRAINT_KINDS[c.kind]} ${c.name} can refuse the previous release's writes`),
    ...gone.map(
      (name) => `${t}: the unique index ${name} is gone; the previous release's ON CONFLICT and errors name it`,
    ),
  ];
}

/** The SELECT and the smallest INSERT the previous release can send, run in savepoints. */
async function previousQueries(tx: Db, table: string, known: SnapshotColumn[]): Promise<string[]> {
  const problems: string[] = [];
  const select = `select ${known.map((c) => ident(c.name)).join(', ')} from ${ident(table)} limit 1`;
  const read = await attempt(tx, select);
  if (read) problems.push(`${table}: the previous release's SELECT fails: ${read.message}`);
  const required = known.filter((c) => c.notNull && !writesItself(c));
  const insert = required.length
    ? `insert into ${ident(table)} (${required.map((c) => ident(c.name)).join(', ')}) ` +
      `values (${required.map(sample).join(', ')})`
    : `insert into ${ident(table)} default values`;
  const write = await attempt(tx, insert);
  // 23503: the row passed every column and check; only its made-up references point nowhere.
  if (write && write.code !== '23503') problems.push(`${table}: the previous release's INSERT fails: ${write.message}`);
  return problems;
}

/** A column the database fills when an INSERT leaves it out. */
function writesItself(col: SnapshotColumn): boolean {
  return col.default !== undefined || Boolean(col.identity) || Boolean(col.generated) || /serial$/i.test(col.type);
}

function typeSql(col: SnapshotColumn): string {
  return col.typeSchema ? `${ident(col.typeSchema)}.${ident(col.type)}` : col.type;
}

/** A value of the column's type, for a column the previous release must write. */
function sample(col: SnapshotColumn): string {
  const type = typeSql(col);
  const t = col.type.toLowerCase();
  if (col.typeSchema) return `(enum_range(null::${type}))[1]`;
  if (t.endsWith('[]')) return `'{}'::${type}`;
  if (/^(text|varchar|char|character|citext)\b/.test(t)) return `'x'::${type}`;
  if (/^(smallint|integer|int|bigint|numeric|decimal|real|double precision)\b/.test(t)) return `0::${type}`;
  if (t === 'boolean') return 'false';
  if (/^(timestamp|date|time)\b/.test(t)) return `now()::${type}`;
  if (/^jsonb?$/.test(t)) return `'{}'::${type}`;
  if (t === 'uuid') return 'gen_random_uuid()';
  if (t === 'bytea') return `''::bytea`;
  throw new Error(`no sample value for the type ${col.type}: add one to sample() in ${import.meta.filename}`);
}

/**
 * The snapshot's types as PostgreSQL spells them (format_type): a temporary table declared with them lets
 * the server normalise `bigserial`, `varchar(255)` or `timestamp` itself.
 */
async function snapshotTypes(tx: Db, probe: string, columns: SnapshotColumn[]): Promise<Map<string, string>> {
  if (columns.length === 0) return new Map();
  await tx.execute(
    sql.raw(`create temporary table ${probe} (${columns.map((c) => `${ident(c.name)} ${typeSql(c)}`)})`),
  );
  const rows = await queryRows<{ name: string; type: string }>(
    tx,
    sql`select attname::text as name, format_type(atttypid, atttypmod) as type from pg_attribute
        where attrelid = to_regclass(${`pg_temp.${probe}`}) and attnum > 0 and not attisdropped`,
  );
  return new Map(rows.map((r) => [r.name, r.type]));
}

interface LiveColumn {
  type: string;
  notNull: boolean;
  hasDefault: boolean;
}

async function liveColumns(tx: Db): Promise<Map<string, Map<string, LiveColumn>>> {
  const rows = await queryRows<LiveColumn & { table: string; column: string }>(
    tx,
    sql`select c.relname::text as "table", a.attname::text as "column", format_type(a.atttypid, a.atttypmod) as type,
          a.attnotnull as "notNull", (a.atthasdef or a.attidentity <> '' or a.attgenerated <> '') as "hasDefault"
        from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped`,
  );
  const tables = new Map<string, Map<string, LiveColumn>>();
  for (const r of rows) {
    if (!tables.has(r.table)) tables.set(r.table, new Map());
    tables.get(r.table)!.set(r.column, { type: r.type, notNull: r.notNull, hasDefault: r.hasDefault });
  }
  return tables;
}

interface LiveConstraint {
  table: string;
  name: string;
  kind: string;
  columns: string[];
  /** an index over an expression, which may read any column */
  expression: boolean;
}

/** Constraints and the unique indexes that back none. */
async function liveConstraints(tx: Db): Promise<LiveConstraint[]> {
  const rows = await queryRows<Omit<LiveConstraint, 'columns'> & { columns: string }>(
    tx,
    sql`select t.relname::text as "table", c.conname::text as name, c.contype::text as kind, false as expression,
          array_to_string(array(select attname::text from pg_attribute
            where attrelid = t.oid and attnum = any(c.conkey)), ',') as columns
        from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = 'public' and c.contype in ('c', 'f', 'u', 'x', 'p')
        union all
        select t.relname::text, i.relname::text, 'i', x.indexprs is not null or x.indpred is not null,
          array_to_string(array(select attname::text from pg_attribute
            where attrelid = t.oid and attnum = any(x.indkey::int2[])), ',')
        from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
          join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = 'public' and x.indisunique
          and not exists (select 1 from pg_constraint k where k.conindid = x.indexrelid and k.conrelid = t.oid)`,
  );
  return rows.map((r) => ({ ...r, columns: r.columns ? r.columns.split(',') : [] }));
}

function uniqueNames(table: SnapshotTable): Set<string> {
  const names = [
    ...Object.values(table.indexes)
      .filter((i) => i.isUnique)
      .map((i) => i.name),
    ...Object.values(table.uniqueConstraints).map((u) => u.name),
    ...Object.values(table.compositePrimaryKeys).map((p) => p.name),
  ];
  if (Object.values(table.columns).some((c) => c.primaryKey)) names.push(`${table.name}_pkey`);
  return new Set(names);
}

/** Every index and constraint name the snapshot's table has. */
function snapshotConstraintNames(table: SnapshotTable): Set<string> {
  return new Set([
    ...uniqueNames(table),
    ...Object.values(table.indexes).map((i) => i.name),
    ...Object.values(table.checkConstraints ?? {}).map((c) => c.name),
    ...Object.values(table.foreignKeys).map((f) => f.name),
  ]);
}

function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

async function attempt(tx: Db, statement: string): Promise<{ code?: string; message: string } | undefined> {
  try {
    await tx.transaction(async (savepoint) => {
      await savepoint.execute(sql.raw(statement));
    });
    return undefined;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message: string } }).cause ?? (err as Error);
    return { code: (cause as { code?: string }).code, message: cause.message };
  }
}

/** Runs fn in a transaction (a savepoint inside one) and undoes everything it did. */
async function rolledBack<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  let result: T | undefined;
  try {
    await db.transaction(async (tx) => {
      result = await fn(tx as unknown as Db);
      tx.rollback();
    });
  } catch (err) {
    if (!(err instanceof TransactionRollbackError)) throw err;
  }
  return result as T;
}
