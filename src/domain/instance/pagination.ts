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

/**
 * The one paging rule of every v2 list: limit 0/unset → 100, above 1000 → INVALID_ARGUMENT (never
 * silently capped, so a client asking for more learns it must page). The offset arrives as a protobuf
 * uint64 (a bigint) or a v1 JSON number; anything the database could not take as an OFFSET is
 * refused here rather than turning into a 500 there.
 */
export function page(req: PageRequest | undefined): Page {
  const offset = req?.offset ?? 0;
  if (!isOffset(offset)) {
    throw invalidArgument(
      'Errors.Pagination.Offset',
      `pagination.offset must be a non-negative integer of at most ${Number.MAX_SAFE_INTEGER}`,
    );
  }
  const requested = req?.limit ?? 0;
  if (requested > MAX_LIMIT)
    throw invalidArgument('Errors.Pagination.Limit', `pagination.limit must be at most ${MAX_LIMIT}`);
  return { offset: Number(offset), limit: requested > 0 ? requested : DEFAULT_LIMIT, asc: req?.asc ?? false };
}

function isOffset(v: number | bigint): boolean {
  return typeof v === 'bigint' ? v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) : Number.isSafeInteger(v) && v >= 0;
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
