import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { announce } from './announce';
import type { Command } from './commands';
import { keepYoungGenerationSmall } from './heap';
import { PREPARING_WORKER, preparedMessage } from './prepared';
import { waitForSignal } from './signals';

const HELP = `Usage: portcullis start [--port N]

Starts the server: Connect/gRPC/gRPC-web API, OIDC endpoints, hosted login and v1 routes on one port.
Every setting comes from the environment (see docs/settings.md); --port overrides PORT.

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
    if (cluster.isPrimary && config.workers > 1) {
      // Before anything else loads: loading it is what would grow the young generation.
      keepYoungGenerationSmall();
      const { superviseWorkers } = await import('./cluster-primary');
      return superviseWorkers(config);
    }
    // The only process, or in a cluster the worker the primary chose: it prepares the database (the
    // migrations, the bootstrap) and runs the background jobs besides serving.
    const prepares = cluster.isPrimary || process.env[PREPARING_WORKER] === '1';
    const { DatabaseUnreachableError } = await import('../db/client');
    const { createLogger } = await import('../log');
    const { start } = await import('../main');
    const log = createLogger(config.logLevel);
    try {
      const app = await start(config, { log, prepare: prepares });
      if (cluster.isPrimary) announce(config, app.database.kind, app.bootstrap, 1);
      else if (prepares) process.send!(preparedMessage(app.database.kind, app.bootstrap));
      // Each serving process bundles the console once; done now, the first visitor does not wait.
      const { warmConsoleBundle } = await import('../console/bundle');
      warmConsoleBundle((err) => log.warn({ err }, 'the console could not be bundled'));
      await waitForSignal();
      log.info('shutting down: draining in-flight requests');
      await app.stop();
      // Stopped cleanly: exit now. A handler whose client went away mid-request may still be on its
      // way to the database when the pool closes, and what it leaves behind (like a worker's IPC
      // channel to the primary) must not keep a stopped server alive.
      process.exit(0);
    } catch (err) {
      const code = startFailure(err, config.port, DatabaseUnreachableError, ConfigError);
      // A worker's IPC channel would keep it running; its primary sees the exit and gives up.
      if (cluster.isWorker) process.exit(code);
      return code;
    }
  },
};

/** Writes why the start failed, in one line; returns the exit code. */
function startFailure(err: unknown, port: number, ...plainErrors: (new (...a: any[]) => Error)[]): number {
  if (plainErrors.some((E) => err instanceof E)) {
    process.stderr.write(`portcullis: ${(err as Error).message}\n`);
    return 1;
  }
  if ((err as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
    process.stderr.write(`portcullis: port ${port} is already in use\n`);
    return 1;
  }
  process.stderr.write(`portcullis: start failed: ${(err as Error)?.message ?? err}\n`);
  return 1;
}
