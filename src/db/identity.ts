import postgres from 'postgres';

/** Where a PostgreSQL URL leads, as the driver reads it (defaults and PG* variables included). */
export interface DatabaseTarget {
  /** `host:port` of each server the URL names */
  servers: string[];
  database: string;
  user: string;
}

/** Reads the URL with the driver's own option parser; this connects nowhere (the driver connects on a query). */
export function databaseTarget(url: string): DatabaseTarget {
  const { host, port, database, user } = postgres(url).options;
  return { servers: host.map((h, i) => `${h}:${port[i] ?? port[0]}`), database, user };
}

/** `host:port/database` of the first server, for messages. */
export function describeTarget(target: DatabaseTarget): string {
  return `${target.servers.join(',')}/${target.database}`;
}

/**
 * The name of a database's own folder inside the data folder (its admin PAT and master key):
 * `<host>-<port>-<database>`, hosts of a list joined by `+`, anything unsafe in a file name as `_`.
 */
export function databaseFolderName(url: string): string {
  const target = databaseTarget(url);
  const name = `${target.servers.map((s) => s.replace(/:(\d+)$/, '-$1')).join('+')}-${target.database}`;
  return name.replace(/[^A-Za-z0-9._+-]/g, '_').replace(/^\./, '_');
}
