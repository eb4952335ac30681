import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/**
 * With DATABASE_URL set, every caller gets a brand-new PostgreSQL database on that server (dropped
 * by the returned cleanup); without it, undefined, and the server uses in-memory PGlite.
 */
export async function freshDatabase(): Promise<{ url?: string; listenUrl?: string; drop: () => Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { url: undefined, drop: async () => {} };
  const name = `pc_test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  // TEST_POOLER_URL (set by test/helpers/with-pgbouncer.ts): servers reach the database through that pooler
  // and LISTEN directly; the database itself is made and dropped directly.
  const pooled = process.env.TEST_POOLER_URL ? new URL(process.env.TEST_POOLER_URL) : undefined;
  if (pooled) pooled.pathname = `/${name}`;
  return {
    url: (pooled ?? url).toString(),
    listenUrl: pooled ? url.toString() : undefined,
    drop: async () => {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await a.end();
    },
  };
}

export const onPostgres = Boolean(process.env.DATABASE_URL);
