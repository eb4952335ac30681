import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitFor } from './process';

const run = promisify(execFile);
export const PGBOUNCER = '/usr/sbin/pgbouncer';

/**
 * Debian's PgBouncer in transaction mode in front of the PostgreSQL at `upstreamPort` (every database, trust
 * authentication for `postgres`, who may also read its admin console). As root it runs as `postgres`, as
 * PgBouncer refuses root.
 */
export async function startPgBouncer(upstreamPort = 5432): Promise<{ port: number; stop: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-bouncer-'));
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'users.txt'), '"postgres" ""\n');
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=127.0.0.1 port=${upstreamPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${dir}/users.txt`,
      'admin_users = postgres',
      'pool_mode = transaction',
      'max_client_conn = 200',
      'default_pool_size = 8',
      `logfile = ${dir}/pgbouncer.log`,
    ].join('\n'),
  );
  const root = process.getuid?.() === 0;
  if (root) await run('chown', ['-R', 'postgres:postgres', dir]);
  const [file, args] = root
    ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER, `${dir}/pgbouncer.ini`]]
    : [PGBOUNCER, [`${dir}/pgbouncer.ini`]];
  const child: ChildProcess = spawn(file, args, { stdio: 'ignore' });
  const stop = async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      () =>
        new Promise<boolean>((resolve) => {
          const s = net.connect(port, '127.0.0.1', () => {
            s.destroy();
            resolve(true);
          });
          s.on('error', () => resolve(false));
        }),
      10_000,
      'PgBouncer listening',
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, stop };
}
