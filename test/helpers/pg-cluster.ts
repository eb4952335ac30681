import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freePort } from './process';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` account. */
async function pg(command: string, args: string[]): Promise<string> {
  const [file, argv] =
    process.getuid?.() === 0
      ? ['runuser', ['-u', 'postgres', '--', `${BIN}/${command}`, ...args]]
      : [`${BIN}/${command}`, args];
  const { stdout } = await run(file, argv, { timeout: 120_000 });
  return stdout;
}

export interface PgNode {
  port: number;
  dir: string;
  url: (database?: string) => string;
  /** `pg_ctl stop -m immediate`: the server dies as in a crash, connections cut without goodbye */
  crash: () => Promise<void>;
  promote: () => Promise<void>;
}

export interface PgPair {
  primary: PgNode;
  standby: PgNode;
  /** primary,standby as one libpq multi-host URL */
  multiHostUrl: (database: string, params?: string) => string;
  sql: (node: PgNode, database?: string) => postgres.Sql;
  stop: () => Promise<void>;
}

/**
 * A primary and a synchronous streaming standby in a temporary folder, on two loopback ports: initdb,
 * `pg_basebackup -R`, and `synchronous_standby_names` naming the standby, so a commit returns only once
 * the standby has it. fsync is off (a test's data need not survive a power cut; the standby's copy is
 * what failover relies on). `asynchronous` makes the standby a read replica that lags: commits do not wait
 * for it, and it applies each commit `applyDelay` (e.g. `2s`, `recovery_min_apply_delay`) after it happened.
 */
export async function startPrimaryAndStandby(opts: { asynchronous?: { applyDelay: string } } = {}): Promise<PgPair> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-ha-'));
  if (process.getuid?.() === 0) await run('chown', ['postgres:postgres', base]);
  const [pPort, sPort] = [await freePort(), await freePort()];
  const node = (name: string, port: number): PgNode => {
    const dir = path.join(base, name);
    return {
      port,
      dir,
      url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
      crash: async () => {
        await pg('pg_ctl', ['-D', dir, 'stop', '-m', 'immediate', '-w']);
      },
      promote: async () => {
        await pg('pg_ctl', ['-D', dir, 'promote', '-w']);
      },
    };
  };
  const primary = node('primary', pPort);
  const standby = node('standby', sPort);
  // Only the primary waits for a synchronous standby: the promoted standby has none of its own, and
  // with the setting copied its commits would wait forever.
  const settings = (port: number, synchronous: boolean) =>
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${base}'`,
      'fsync = off',
      'max_connections = 200',
      'wal_level = replica',
      'max_wal_senders = 5',
      'hot_standby = on',
      synchronous ? "synchronous_standby_names = 'standby1'" : "synchronous_standby_names = ''",
      'synchronous_commit = on',
    ].join('\n');
  const started: PgNode[] = [];
  const stop = async () => {
    for (const n of started) await pg('pg_ctl', ['-D', n.dir, 'stop', '-m', 'immediate']).catch(() => {});
    fs.rmSync(base, { recursive: true, force: true });
  };
  try {
    await pg('initdb', ['-D', primary.dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    fs.appendFileSync(path.join(primary.dir, 'postgresql.conf'), `\n${settings(pPort, !opts.asynchronous)}\n`);
    await pg('pg_ctl', ['-D', primary.dir, '-l', path.join(base, 'primary.log'), '-w', 'start']);
    started.push(primary);
    await pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(pPort), '-U', 'postgres', '-D', standby.dir, '-R']);
    fs.appendFileSync(
      path.join(standby.dir, 'postgresql.auto.conf'),
      `\nprimary_conninfo = 'host=127.0.0.1 port=${pPort} user=postgres application_name=standby1'\n`,
    );
    fs.appendFileSync(path.join(standby.dir, 'postgresql.conf'), `\n${settings(sPort, false)}\n`);
    if (opts.asynchronous) {
      fs.appendFileSync(
        path.join(standby.dir, 'postgresql.conf'),
        `recovery_min_apply_delay = '${opts.asynchronous.applyDelay}'\n`,
      );
    }
    await pg('pg_ctl', ['-D', standby.dir, '-l', path.join(base, 'standby.log'), '-w', 'start']);
    started.push(standby);
    const admin = postgres(primary.url(), { max: 1, onnotice: () => {} });
    try {
      for (let i = 0; ; i++) {
        const [r] = opts.asynchronous
          ? await admin`select count(*)::int as n from pg_stat_replication where state = 'streaming'`
          : await admin`select count(*)::int as n from pg_stat_replication where sync_state = 'sync'`;
        if (r.n === 1) break;
        if (i > 100) throw new Error('the standby did not start streaming');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await admin.end();
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    primary,
    standby,
    multiHostUrl: (database, params = 'target_session_attrs=read-write') =>
      `postgres://postgres@127.0.0.1:${pPort},127.0.0.1:${sPort}/${database}?${params}`,
    sql: (n, database = 'postgres') => postgres(n.url(database), { max: 2, onnotice: () => {} }),
    stop,
  };
}

/**
 * A single PostgreSQL server in a temporary folder whose every connection must give a password
 * (scram-sha-256; the role `postgres` has `password`), unlike the shared server of the tests, which
 * trusts loopback connections.
 */
export async function startPasswordServer(password: string): Promise<{ port: number; stop: () => Promise<void> }> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-pw-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await run('chown', ['postgres:postgres', base]);
  const port = await freePort();
  const dir = path.join(base, 'data');
  const pwfile = path.join(base, 'pw');
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (asRoot) await run('chown', ['postgres:postgres', pwfile]);
  const stop = async () => {
    await pg('pg_ctl', ['-D', dir, 'stop', '-m', 'immediate']).catch(() => {});
    fs.rmSync(base, { recursive: true, force: true });
  };
  try {
    await pg('initdb', ['-D', dir, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '--no-sync']);
    const settings = [`port = ${port}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${base}'`];
    fs.appendFileSync(path.join(dir, 'postgresql.conf'), `\n${[...settings, 'fsync = off'].join('\n')}\n`);
    await pg('pg_ctl', ['-D', dir, '-l', path.join(base, 'server.log'), '-w', 'start']);
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, stop };
}
