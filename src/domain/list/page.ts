import { type AnyColumn, type SQL, asc, desc } from 'drizzle-orm';
import { invalidArgument } from '../errors';

/** The paging rules every list follows (v2 RPCs and v1 searches alike): default limit 100, at most 1000. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** Paging as a caller asks for it: a protobuf uint64 offset (bigint) or a v1 JSON number. */
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

/** The one result shape of every list. */
export interface ListResult<T> {
  /** number of records matching the filters (the whole list) */
  total: number;
  appliedLimit: number;
  items: T[];
}

/**
 * The one paging rule: limit 0/unset → 100, above 1000 → INVALID_ARGUMENT (never silently capped, so
 * a client asking for more learns it must page). Anything the database could not take as an OFFSET is
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

/** ORDER BY terms for the page's direction: newest (or last) first unless `asc`. */
export function ordered(p: Page, ...columns: (AnyColumn | SQL | SQL.Aliased)[]): SQL[] {
  const dir = p.asc ? asc : desc;
  return columns.map((c) => dir(c));
}

/** The list result of a page: its rows and the count of all matches, both queried at once. */
export async function listResult<T>(
  p: Page,
  rows: PromiseLike<T[]>,
  count: PromiseLike<{ n: number }[]>,
): Promise<ListResult<T>> {
  const [items, [{ n }]] = await Promise.all([rows, count]);
  return { total: Number(n), appliedLimit: p.limit, items };
}

/** An empty list (the caller may see nothing), with the limit the request would have had. */
export function emptyList<T>(p: Page): ListResult<T> {
  return { total: 0, appliedLimit: p.limit, items: [] };
}
