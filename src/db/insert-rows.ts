import { type Column, getTableColumns, getTableName, is, SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './client';

/**
 * A multi-row insert written as drizzle writes it — every insertable column in the table's order, an
 * absent value as the column's default function or `default`, each value through the column's own
 * mapping to the driver — but with the statement text built directly. drizzle's builder wraps every
 * value in a parameter object and tests each chunk's class several times over; for the batched
 * CreateUser (two inserts of up to 128 rows of 10–25 columns) that was a quarter of the server's CPU
 * per create (npm run bench -- users --profile). The statement goes through the session's own
 * prepared-query path, so logging, error wrapping and the preparing client (src/db/prepared.ts) apply
 * as to any other query. Values must be plain: an SQL expression has no place in this fast path.
 */
export async function insertRows<T extends PgTable>(db: Db, table: T, rows: readonly T['$inferInsert'][]) {
  if (rows.length === 0) return;
  const shape = shapeOf(table);
  const params: unknown[] = [];
  const tuples: string[] = [];
  for (const row of rows as readonly Record<string, unknown>[]) {
    const slots: string[] = [];
    for (const [key, column] of shape.columns) {
      let value = row[key];
      if (value === undefined) {
        if (column.defaultFn !== undefined) value = column.defaultFn();
        else if (!column.default && column.onUpdateFn !== undefined) value = column.onUpdateFn();
        else {
          slots.push('default');
          continue;
        }
      }
      if (is(value, SQL)) throw new Error(`insertRows: ${shape.name}.${key} is an SQL expression`);
      params.push(value === null ? null : column.mapToDriverValue(value));
      slots.push(`$${params.length}`);
    }
    tuples.push(`(${slots.join(', ')})`);
  }
  const session = (db as unknown as { session: PreparingSession }).session;
  await session
    .prepareQuery({ sql: `${shape.head}${tuples.join(', ')}`, params }, undefined, undefined, false)
    .execute();
}

interface PreparingSession {
  prepareQuery(
    query: { sql: string; params: unknown[] },
    fields: undefined,
    name: undefined,
    arrayMode: boolean,
  ): { execute(): Promise<unknown> };
}

interface Shape {
  name: string;
  columns: [string, Column][];
  head: string;
}

// A table's columns never change: worked out once per table for the whole process, not per server.
const shapes = new WeakMap<PgTable, Shape>();

function shapeOf(table: PgTable): Shape {
  let shape = shapes.get(table);
  if (!shape) {
    const name = getTableName(table);
    const columns = Object.entries(getTableColumns(table)).filter(
      ([, c]) => !(c as unknown as { shouldDisableInsert(): boolean }).shouldDisableInsert(),
    );
    const quote = (id: string) => `"${id.replaceAll('"', '""')}"`;
    const head = `insert into ${quote(name)} (${columns.map(([, c]) => quote(c.name)).join(', ')}) values `;
    shape = { name, columns, head };
    shapes.set(table, shape);
  }
  return shape;
}
