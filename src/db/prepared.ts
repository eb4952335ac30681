import type postgres from 'postgres';

/**
 * Statements with more parameters than this run unprepared: their text grows with a list or a batch
 * (`in ($1, …, $n)`, a multi-row insert), so each length would stay prepared on every connection for
 * its lifetime (postgres.js never forgets a statement); the fixed-shape lookups and writes of a
 * request have fewer.
 */
export const MAX_PREPARED_PARAMETERS = 64;

/**
 * drizzle's postgres.js session asks the driver to prepare only the queries built with `.prepare()`
 * and passes `prepare: false` for every other one, so each statement was parsed and planned anew, in
 * two round trips (parse and describe, then bind and execute). This client prepares the statements of
 * at most MAX_PREPARED_PARAMETERS parameters instead: one round trip, and PostgreSQL keeps the plan
 * for the connection. The pool's own `prepare: false` (PORTCULLIS_DB_PREPARED_STATEMENTS=false, behind
 * a transaction-mode pooler) still wins: postgres.js prepares only when both agree. Transactions and
 * savepoints hand drizzle a client of their own, which prepares the same way.
 */
export function preparing(sql: postgres.Sql): postgres.Sql {
  return wrap(sql);
}

type Client = postgres.Sql | postgres.TransactionSql;

function wrap<T extends Client>(client: T): T {
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'unsafe')
        return (text: string, params?: unknown[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(text, params as any, {
            ...options,
            prepare: (params?.length ?? 0) <= MAX_PREPARED_PARAMETERS,
          });
      if (prop === 'begin' || prop === 'savepoint')
        return (...args: unknown[]) => {
          const fn = args.pop() as (tx: postgres.TransactionSql) => unknown;
          return (target as any)[prop](...args, (tx: postgres.TransactionSql) => fn(wrap(tx)));
        };
      return Reflect.get(target, prop, receiver);
    },
  });
}
