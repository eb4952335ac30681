import { type AnyColumn, type SQL, sql } from 'drizzle-orm';
import { invalidArgument } from '../errors';

/**
 * The one text-filter vocabulary of the domain; the v2 TextFilterMethod and the v1 TEXT_QUERY_METHOD_*
 * enums convert into it at the edge (src/api/list.ts, src/v1/list.ts).
 */
export type TextMethod =
  | 'equals'
  | 'equals_ignore_case'
  | 'starts_with'
  | 'starts_with_ignore_case'
  | 'contains'
  | 'contains_ignore_case';

export interface TextFilter {
  value: string;
  method: TextMethod;
}

const escapeLike = (s: string) => s.replaceAll(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A text filter as SQL that the indexes can answer: the `_ignore_case` forms compare lower(column) so a
 * lower() index serves them, and prefixes also become a byte-wise range (`~>=~`/`~<~`, what
 * text_pattern_ops indexes serve) so that a prepared, generic plan still uses the index.
 */
export function textCondition(column: AnyColumn, value: string, method: TextMethod = 'equals'): SQL {
  const lowered = sql`lower(${column})`;
  switch (method) {
    case 'equals':
      return sql`${column} = ${value}`;
    case 'equals_ignore_case':
      return sql`${lowered} = ${value.toLowerCase()}`;
    case 'starts_with':
    case 'starts_with_ignore_case': {
      const p = value.toLowerCase();
      const range = sql`${lowered} ~>=~ ${p} and ${lowered} ~<~ ${`${p}\u{10FFFF}`}`;
      if (method === 'starts_with') return sql`(${range} and ${column} like ${`${escapeLike(value)}%`})`;
      return sql`(${range} and ${lowered} like ${`${escapeLike(p)}%`})`;
    }
    case 'contains':
      return sql`${column} like ${`%${escapeLike(value)}%`}`;
    case 'contains_ignore_case':
      return sql`${lowered} like ${`%${escapeLike(value.toLowerCase())}%`}`;
  }
}

/** The longest value ListUsers takes in a text filter. */
const MAX_TEXT_FILTER_LENGTH = 200;

export function checkTextFilterLength(field: string, value: string): void {
  if (value.length > MAX_TEXT_FILTER_LENGTH)
    throw invalidArgument(
      'Errors.Query.Invalid',
      `${field}.value must be at most ${MAX_TEXT_FILTER_LENGTH} characters`,
    );
}
