import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config';
import { startRateLimitPrimary } from '../http/rate-limit/primary';
import { createLogger } from '../log';
import { announce } from './announce';
import { workerEnv, workerExecArgv } from './heap';
import { isPreparedMessage, PREPARING_WORKER, type PreparedMessage } from './prepared';
import { waitForSignal } from './signals';

/**
 * The cluster primary: forks the serving workers, restarts crashed ones, drains them on SIGTERM, and
 * keeps the workers' rate-limit counters, so that limits hold for the replica as a whole. It opens no
 * database connection and loads neither the domain nor the server: the first worker prepares the
 * database (src/cli/prepared.ts) and runs the background jobs, and the others start once it is ready.
 * Returns the exit code.
 */
export async function superviseWorkers(config: Config): Promise<number> {
  const log = createLogger(config.logLevel);
  startRateLimitPrimary();
  cluster.setupPrimary({ execArgv: workerExecArgv() });
  const preparing = new WeakSet<Worker>();
  const fork = (prepares: boolean) => {
    const worker = cluster.fork({ ...workerEnv(), ...(prepares ? { [PREPARING_WORKER]: '1' } : {}) });
    if (prepares) preparing.add(worker);
    return worker;
  };

  const prepared = await new Promise<PreparedMessage | number>((resolve) => {
    const first = fork(true);
    first.on('message', (msg) => isPreparedMessage(msg) && resolve(msg));
    // It wrote why to stderr; the replica does not start.
    first.once('exit', (code) => resolve(code || 1));
  });
  if (typeof prepared === 'number') return prepared;
  announce(config, prepared.databaseKind, prepared.bootstrap, config.workers);
  for (let i = 1; i < config.workers; i++) fork(false);

  let stopping = false;
  cluster.on('exit', (worker, code) => {
    if (stopping) return;
    log.warn({ worker: worker.process.pid, code }, 'worker exited; starting a new one');
    setTimeout(() => fork(preparing.has(worker)), 500);
  });
  await waitForSignal();
  stopping = true;
  log.info('shutting down: draining workers');
  const exits = Object.values(cluster.workers ?? {}).map(
    (w) => new Promise<void>((resolve) => (w!.isDead() ? resolve() : w!.once('exit', () => resolve()))),
  );
  for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  await Promise.all(exits);
  return 0;
}
