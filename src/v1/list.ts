import type { Ctx } from '../domain/context';
import { invalidArgument } from '../domain/errors';
import { aggregateSequences } from '../domain/events/sequence';
import type { ListResult, PageRequest } from '../domain/list/page';
import type { TextFilter, TextMethod } from '../domain/list/text-filter';
import { type Obj, bool, int, obj, str } from './shape';

/** The v1 side of the list toolkit (src/domain/list): paging and text queries in, list answers out. */

/** v1 list paging `query {offset, limit, asc}`. */
export function pageOf(body: Obj): PageRequest {
  const q = obj(body, 'query', '') ?? {};
  return { offset: int(q, 'offset', 'query'), limit: int(q, 'limit', 'query'), asc: bool(q, 'asc', 'query') };
}

const TEXT_METHODS: Record<string, TextMethod> = {
  TEXT_QUERY_METHOD_EQUALS: 'equals',
  TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE: 'equals_ignore_case',
  TEXT_QUERY_METHOD_STARTS_WITH: 'starts_with',
  TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE: 'starts_with_ignore_case',
  TEXT_QUERY_METHOD_CONTAINS: 'contains',
  TEXT_QUERY_METHOD_CONTAINS_IGNORE_CASE: 'contains_ignore_case',
};

/** A v1 text query `{<field>, method}`; the method defaults to equals, as the v1 enum's zero value. */
export function textQuery(q: Obj, field: string, path: string): TextFilter {
  const method = str(q, 'method', path) ?? 'TEXT_QUERY_METHOD_EQUALS';
  if (!Object.hasOwn(TEXT_METHODS, method))
    throw invalidArgument('Errors.Query.Invalid', `${path}.method is not a text query method`);
  return { value: str(q, field, path) ?? '', method: TEXT_METHODS[method] };
}

/** `details` of v1 list responses. */
function listDetails(total: number) {
  return { totalResult: String(total), viewTimestamp: new Date().toISOString() };
}

/** A v1 search's answer: its details, and each item converted with its aggregate's event sequence. */
export async function searchAnswer<T extends { id: string }, V>(
  ctx: Ctx,
  aggregateType: string,
  found: ListResult<T>,
  toV1: (item: T, sequence: number) => V,
) {
  const sequences = await aggregateSequences(
    ctx,
    aggregateType,
    found.items.map((x) => x.id),
  );
  return { details: listDetails(found.total), result: found.items.map((x) => toV1(x, sequences.get(x.id) ?? 0)) };
}
