import type { Logger } from 'pino';
import type { Config } from './config';
import type { Database } from './db/client';
import type { ReadRouter } from './db/read-router';

/** What the transports need from the composition root. Passed down explicitly, never global. */
export interface Deps {
  config: Config;
  database: Database;
  /** chooses between the primary and DATABASE_READ_URL for the reads that tolerate lag; absent without it */
  reads?: ReadRouter;
  instanceId: string;
  log: Logger;
}
