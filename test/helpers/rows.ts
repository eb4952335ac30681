import type { TestServer } from './server';

/**
 * Reads rows with plain SQL, for what no API shows (stored hashes, queued mail). Reading only: set-up
 * goes through the domain or the API.
 */
export async function rows(server: TestServer, sql: string): Promise<Record<string, any>[]> {
  const r = await server.app.database.db.execute(sql);
  return ((r as any).rows ?? r) as Record<string, any>[];
}
