import type { Config } from '../config';
import type { DatabaseOptions } from './client';

/**
 * How `start`, `migrate --check` and `admin recover` reach the configured database: one reading of the
 * settings, so a new database setting cannot be forgotten by one of them. The caller chooses the pool
 * size and whether a missing database is created.
 */
export function connectOptionsOf(
  config: Config,
  opts: { poolSize: number; createMissing: boolean },
): DatabaseOptions & { timeoutMs: number; createMissing: boolean } {
  return {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: opts.poolSize,
    listenUrl: config.databaseListenUrl,
    preparedStatements: config.dbPreparedStatements,
    pipelining: config.dbPipelining,
    queryTimeoutMs: config.dbQueryTimeoutMs,
    timeoutMs: config.dbConnectTimeoutMs,
    createMissing: opts.createMissing,
  };
}
