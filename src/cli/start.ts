import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import type { Portcullis } from '../main';
import type { Command } from './commands';
import { keepYoungGenerationSmall, workerExecArgv } from './heap';

const HELP = `Usage: portcullis start [--port N]

Starts the server: Connect/gRPC/gRPC-web API, OIDC endpoints, hosted login and v1 routes on one port.
Every setting comes from the environment (see the README's settings table); --port overrides PORT.

Options:
  --port N    listen on port N (default: $PORT or 8080)
  -h, --help  show this help`;

export const startCommand: Command = {
  name: 'start',
  summary: 'start the server (settings from the environment)',
  async run(args) {
    let values: { port?: string; help?: boolean };
    try {
      ({ values } = parseArgs({ args, options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
    } catch (err) {
      process.stderr.write(`portcullis start: ${(err as Error).message}\n\n${HELP}\n`);
      return 2;
    }
    if (values.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    if (values.port) process.env.PORT = values.port;
    // The server code is loaded only here, so that other commands (and --help) start light.
    const { ConfigError, loadConfig } = await import('../config');
    let config: import('../config').Config;
    try {
      config = loadConfig();
    } catch (err) {
      if (err instanceof ConfigError) {
        process.stderr.write(`portcullis: ${err.message}\n`);
        return 2;
      }
      throw err;
    }
    const isWorker = cluster.isWorker;
    const useCluster = !isWorker && config.workers > 1;
    // Before the server code loads: loading it is what would grow the young generation.
    if (useCluster) keepYoungGenerationSmall();
    const { DatabaseUnreachableError } = await import('../db/client');
    const { createLogger } = await import('../log');
    const { start } = await import('../main');
    const log = createLogger(config.logLevel);
    try {
      const app = await start(config, { log, serve: !useCluster, prepare: !isWorker });
      if (!isWorker) announce(app, useCluster ? config.workers : 1);
      // Each serving process bundles the console once; done now, the first visitor does not wait.
      if (app.server) {
        const { warmConsoleBundle } = await import('../console/bundle');
        warmConsoleBundle((err) => log.warn({ err }, 'the console could not be bundled'));
      }
      if (useCluster) return await superviseWorkers(config.workers, log, app.stop);
      await waitForSignal();
      log.info('shutting down: draining in-flight requests');
      await app.stop();
      // Stopped cleanly: exit now. A handler whose client went away mid-request may still be on its
      // way to the database when the pool closes, and what it leaves behind (like a worker's IPC
      // channel to the primary) must not keep a stopped server alive.
      process.exit(0);
    } catch (err) {
      if (err instanceof DatabaseUnreachableError || err instanceof ConfigError) {
        process.stderr.write(`portcullis: ${err.message}\n`);
        return 1;
      }
      if ((err as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
        process.stderr.write(`portcullis: port ${config.port} is already in use\n`);
        return 1;
      }
      process.stderr.write(`portcullis: start failed: ${(err as Error)?.message ?? err}\n`);
      return 1;
    }
  },
};

function announce(app: Portcullis, workers: number) {
  const { config, bootstrap: boot } = app;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    `Portcullis is listening on port ${config.port} (${workers} worker${workers > 1 ? 's' : ''}, ${app.database.kind})`,
  );
  out(`  URL:        ${config.externalUrl}`);
  out(`  Console:    ${config.externalUrl}/ui/console/`);
  out(`  Discovery:  ${config.externalUrl}/.well-known/openid-configuration`);
  if (boot.created) {
    out('First start: created the instance, the first organization and the administrators.');
    if (boot.generatedPassword) out(`  Login name "admin", generated password (shown only now): ${boot.adminPassword}`);
    else out('  Login name "admin" with the password from PORTCULLIS_ADMIN_PASSWORD');
  }
  if (config.adminPatFile) out(`  Admin PAT:  ${config.adminPatFile}`);
  else if (boot.created) out('  Admin PAT:  not written (in-memory database without PORTCULLIS_ADMIN_PAT_FILE)');
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
}

/** The cluster primary: forks the serving workers, restarts crashed ones, and drains them on SIGTERM. */
async function superviseWorkers(n: number, log: Logger, stopPrimary: () => Promise<void>): Promise<number> {
  let stopping = false;
  // The workers' rate-limit counters live here, so that limits hold for the replica as a whole.
  const { startRateLimitPrimary } = await import('../http/rate-limit/primary');
  startRateLimitPrimary();
  cluster.setupPrimary({ execArgv: workerExecArgv() });
  const fork = () => cluster.fork();
  for (let i = 0; i < n; i++) fork();
  cluster.on('exit', (worker, code) => {
    if (!stopping) {
      log.warn({ worker: worker.process.pid, code }, 'worker exited; starting a new one');
      setTimeout(fork, 500);
    }
  });
  await waitForSignal();
  stopping = true;
  log.info('shutting down: draining workers');
  const exits = Object.values(cluster.workers ?? {}).map(
    (w) => new Promise<void>((resolve) => (w!.isDead() ? resolve() : w!.once('exit', () => resolve()))),
  );
  for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  await Promise.all(exits);
  await stopPrimary();
  return 0;
}
