import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase } from './database';
import { type CliProcess, freePort, runCli, waitFor } from './process';

export interface WorkerServer {
  base: string;
  port: number;
  /** the bootstrap administrator's PAT */
  pat: string;
  proc: CliProcess;
}

/**
 * Runs `fn` against `portcullis start` with two worker processes on a fresh PostgreSQL database
 * (workers need PostgreSQL), logging at info so tests can see which worker answered. A failure
 * carries the server's output; everything is cleaned up afterwards.
 */
export async function withWorkers(fn: (server: WorkerServer) => Promise<void>): Promise<void> {
  const db = await freshDatabase();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pc-workers-'));
  const proc = runCli(['start'], {
    DATABASE_URL: db.url,
    PORT: String(port),
    PORTCULLIS_HOST: '127.0.0.1',
    PORTCULLIS_WORKERS: '2',
    PORTCULLIS_DATA_DIR: dataDir,
    PORTCULLIS_ADMIN_PAT_FILE: path.join(dataDir, 'admin.pat'),
    PORTCULLIS_LOG_LEVEL: 'info',
  });
  try {
    // three processes compiling the sources through tsx: over a minute when other test files run beside it
    await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, 90_000, 'workers ready');
    await fn({ base, port, pat: fs.readFileSync(path.join(dataDir, 'admin.pat'), 'utf8').trim(), proc });
  } catch (err) {
    throw new Error(
      `${(err as Error).message}\n--- stdout\n${proc.stdout().slice(-3000)}\n--- stderr\n${proc.stderr().slice(-3000)}`,
    );
  } finally {
    proc.child.kill('SIGKILL');
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The process ids of the log lines that match `line`. */
export function pidsLogging(proc: CliProcess, line: RegExp): Set<number> {
  const pids = new Set<number>();
  for (const l of proc.stdout().split('\n')) {
    const m = /"pid":(\d+)/.exec(l);
    if (m && line.test(l)) pids.add(Number(m[1]));
  }
  return pids;
}
