import { type AnyColumn, type SQL, sql } from 'drizzle-orm';
import { invalidArgument } from '../errors';

/** The paging rules every v2 list follows: default limit 100, at most 1000. */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface PageRequest {
  offset?: number | bigint;
  limit?: number;
  asc?: boolean;
}

export interface Page {
  offset: number;
  limit: number;
  asc: boolean;
}

export interface ListResult<T> {
  /** number of records matching the filters (the whole list) */
  total: number;
  appliedLimit: number;
  items: T[];
}

export function page(req: PageRequest | undefined): Page {
  const offset = Number(req?.offset ?? 0);
  const requested = req?.limit ?? 0;
  if (requested > MAX_LIMIT) throw invalidArgument('Errors.Pagination.Limit', `pagination.limit must be at most ${MAX_LIMIT}`);
  return { offset, limit: requested > 0 ? requested : DEFAULT_LIMIT, asc: req?.asc ?? false };
}

export type TextMethod =
  | 'equals'
  | 'equals_ignore_case'
  | 'starts_with'
  | 'starts_with_ignore_case'
  | 'contains'
  | 'contains_ignore_case';

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A text filter as SQL; the `_ignore_case` forms compare lower(column) so a lower() index serves them. */
export function textCondition(column: AnyColumn | SQL, value: string, method: TextMethod = 'equals'): SQL {
  const v = method.endsWith('ignore_case') ? value.toLowerCase() : value;
  const col = method.endsWith('ignore_case') ? sql`lower(${column})` : sql`${column}`;
  if (method.startsWith('equals')) return sql`${col} = ${v}`;
  if (method.startsWith('starts_with')) return sql`${col} like ${`${escapeLike(v)}%`}`;
  return sql`${col} like ${`%${escapeLike(v)}%`}`;
}
