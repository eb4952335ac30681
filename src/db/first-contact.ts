import postgres from 'postgres';
import { type DatabaseTarget, databaseTarget, describeTarget } from './identity';

/**
 * What PostgreSQL answers at the first contact that no waiting cures: the database does not exist
 * (3D000), the password is wrong (28P01), the role is unknown or pg_hba.conf refuses it (28000), the role
 * may not connect (42501). The start fails on these at once instead of retrying them.
 */
const PERMANENT = new Set(['3D000', '28P01', '28000', '42501']);

export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isPermanent(err: unknown): boolean {
  return PERMANENT.has(sqlState(err) ?? '');
}

/** The command that creates the database for its role, for an operator allowed to. */
function createdbCommand(target: DatabaseTarget): string {
  const [host, port] = splitServer(target.servers[0]);
  return `createdb -h ${host} -p ${port} -O ${shellWord(target.user)} ${shellWord(target.database)}`;
}

/** One line saying what went wrong and what to change, for a permanent error of the first contact. */
export function permanentMessage(err: unknown, url: string): string {
  const target = databaseTarget(url);
  const where = describeTarget(target);
  const said = (err as Error).message;
  switch (sqlState(err)) {
    case '3D000':
      return (
        `database "${target.database}" does not exist on ${target.servers.join(',')}; create it with ` +
        `\`${createdbCommand(target)}\` (as a role that may create databases)`
      );
    case '28P01':
      return `PostgreSQL at ${where} refused the password of role "${target.user}": check DATABASE_URL (${said})`;
    case '28000':
      return `PostgreSQL at ${where} refused role "${target.user}": ${said} (check DATABASE_URL and pg_hba.conf)`;
    default:
      return `PostgreSQL at ${where} refused role "${target.user}": ${said} (grant it CONNECT on the database)`;
  }
}

/** The database exists now (made here, or by a replica starting at the same moment). */
export type Created = 'created' | 'existed';

/**
 * Creates the database a URL names, as its own role, through the maintenance database (`postgres`, or
 * `template1` where that is gone, as `createdb` does). Throws an Error whose message names the database
 * and the `createdb` command when the role may not create databases.
 */
export async function createDatabase(url: string, connectTimeoutMs: number): Promise<Created> {
  const target = databaseTarget(url);
  let lastErr: unknown;
  for (const maintenance of ['postgres', 'template1']) {
    const sql = postgres(url, {
      database: maintenance,
      max: 1,
      onnotice: () => {},
      connect_timeout: Math.max(1, connectTimeoutMs / 1000),
    });
    try {
      await sql.unsafe(`create database "${target.database.replace(/"/g, '""')}"`);
      return 'created';
    } catch (err) {
      lastErr = err;
      if (sqlState(err) === '42P04') return 'existed';
      if (sqlState(err) !== '3D000') break;
    } finally {
      await sql.end({ timeout: 1 }).catch(() => {});
    }
  }
  const why = (lastErr as Error)?.message ?? String(lastErr);
  throw new Error(
    `database "${target.database}" does not exist on ${target.servers.join(',')} and role "${target.user}" ` +
      `cannot create it (${why}); create it with \`${createdbCommand(target)}\` as a role that may create databases`,
  );
}

function splitServer(server: string): [string, string] {
  const i = server.lastIndexOf(':');
  return [server.slice(0, i), server.slice(i + 1)];
}

/** A word as a POSIX shell reads it back: quoted only when it needs to be. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_.@%+=:,/-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
