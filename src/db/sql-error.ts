/** A database error as postgres.js and PGlite report it: its SQLSTATE and, for a constraint, the constraint's name. */
export interface SqlError {
  code: string;
  constraint_name?: string;
  constraint?: string;
}

/**
 * The database error in `err` or in one of its causes whose SQLSTATE `matches`: postgres.js throws it,
 * while drizzle and the transaction helpers wrap it (a few levels at most).
 */
export function sqlErrorIn(err: unknown, matches: (code: string) => boolean): SqlError | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string' && matches(e.code)) return e as SqlError;
    e = e.cause as typeof e;
  }
  return undefined;
}
