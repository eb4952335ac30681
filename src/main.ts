import type { Logger } from 'pino';
import { type Config, loadConfig } from './config';
import { connectWithRetry, type Database } from './db/client';
import { connectOptionsOf } from './db/connect-options';
import { migrate } from './db/migrate';
import { type Deps, Runtime } from './deps';
import { bootstrap, type BootstrapResult } from './domain/bootstrap';
import { ensureConsoleClient } from './console/system-client';
import { wireCommands } from './domain/execute';
import { listenForInvalidations } from './domain/cache';
import { ReadRouter } from './db/read-router';
import { watchWrites } from './domain/read-your-writes';
import { findInstance } from './domain/instance/queries';
import { settleDatabaseFolder } from './crypto/keys/database-folder';
import { createLogger } from './log';
import type { RunningServer } from './server';
import { startBackgroundJobs, type BackgroundJobs } from './jobs';
import { backgroundJobs, bearerResolvers, commitObservers, uniqueConstraintErrors } from './wiring';
import { installBearerResolvers } from './authz/authenticate';

export interface Portcullis {
  config: Config;
  deps: Deps;
  database: Database;
  server: RunningServer;
  /** the background jobs this process runs (in a cluster, only the worker that prepared the database) */
  jobs?: BackgroundJobs;
  bootstrap: BootstrapResult;
  stop(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  /**
   * false in all cluster workers but one: that one migrated and bootstrapped the database before the
   * others started, and runs the background jobs.
   */
  prepare?: boolean;
  /** with PORTCULLIS_DATA_DIR=memory://, a PGlite data directory to start from (see DatabaseOptions) */
  pgliteSeed?: Blob;
}

/**
 * Composition root: config → database → migrations → bootstrap → server. The jobs, commit observers,
 * unique-constraint errors and bearer token resolvers come from the lists in src/wiring.ts and are
 * installed here; what the server keeps in memory is its runtime, made here and passed down.
 */
export async function start(config: Config = loadConfig(), opts: StartOptions = {}): Promise<Portcullis> {
  const log = opts.log ?? createLogger(config.logLevel);
  const database = await connectWithRetry({
    // the first contact with a new PostgreSQL database creates it when its role may
    ...connectOptionsOf(config, { poolSize: config.dbPoolSize, createMissing: true }),
    pgliteSeed: opts.pgliteSeed,
  });
  // This server's caches, queues and registrations, passed down in deps and every Ctx (src/deps.ts).
  const runtime = new Runtime();
  // Before any command runs (bootstrap executes commands too).
  wireCommands(runtime, { observers: commitObservers, uniqueConstraintErrors });
  let reads: ReadRouter | undefined;
  try {
    let boot: BootstrapResult;
    if (opts.prepare !== false) {
      await migrate(database);
      await settleFolder(config, database, log);
      boot = await bootstrap(
        { database, runtime },
        {
          externalUrl: config.externalUrl,
          orgName: config.orgName,
          adminPassword: config.adminPassword,
          adminPatFile: config.adminPatFile,
        },
      );
      // for the announcement of a cluster's primary, which did not settle the folder itself
      boot.patFile ??= config.adminPatFile;
      await ensureConsoleClient({ database, runtime }, config.externalUrl);
    } else {
      await settleFolder(config, database, log);
      const instance = await findInstance(database.db);
      if (!instance) throw new Error('the database has no instance yet; start the primary process first');
      boot = { created: false, instanceId: instance.id, patFile: config.adminPatFile };
    }
    // Config refuses a read URL without PostgreSQL. The gauges live with the server's metrics.
    if (config.databaseReadUrl) {
      const { replicaFallbacks, replicaLag } = await import('./http/metrics');
      reads = new ReadRouter({
        primary: database.db,
        replicaUrl: config.databaseReadUrl,
        poolSize: config.dbPoolSize,
        preparedStatements: config.dbPreparedStatements,
        pipelining: config.dbPipelining,
        queryTimeoutMs: config.dbQueryTimeoutMs,
        // as for DATABASE_URL: a DATABASE_LISTEN_URL of its own means the pool goes through a pooler
        statementTimeout: !config.databaseListenUrl,
        maxLagMs: config.dbReadMaxLagMs,
        onCheck: (lag) => replicaLag.set(lag ?? -1),
        onFallback: () => replicaFallbacks.inc(),
      });
    }
    await listenForInvalidations(runtime, database, reads ? watchWrites(runtime, reads) : undefined);
    const deps: Deps = { config, database, reads, instanceId: boot.instanceId, log, runtime };
    installBearerResolvers(
      runtime,
      bearerResolvers.map((resolverFor) => resolverFor(deps)),
    );
    let jobs: BackgroundJobs | undefined;
    if (opts.prepare !== false) jobs = await startBackgroundJobs(deps, backgroundJobs);
    // Imported here, not with this module: `portcullis migrate` and the tests of the domain that
    // import start() do not load the HTTP stack, the API, the hosted login and their libraries.
    const { startServer } = await import('./server');
    const server = await startServer(deps);
    return {
      config,
      deps,
      database,
      server,
      jobs,
      bootstrap: boot,
      async stop() {
        await server.close();
        await jobs?.stop();
        await reads?.close();
        await database.close();
      },
    };
  } catch (err) {
    await reads?.close().catch(() => {});
    await database.close().catch(() => {});
    throw err;
  }
}

/** Before anything reads the master key: which folder holds this database's key and admin PAT. */
async function settleFolder(config: Config, database: Database, log: Logger): Promise<void> {
  const elsewhere = await settleDatabaseFolder(config, database);
  if (elsewhere) log.info({ folder: elsewhere }, 'this database has its master key and admin PAT in another folder');
}
