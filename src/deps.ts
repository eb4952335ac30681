import type { Logger } from 'pino';
import type { Config } from './config';
import type { Database } from './db/client';

/** What the transports need from the composition root. Passed down explicitly, never global. */
export interface Deps {
  config: Config;
  database: Database;
  instanceId: string;
  log: Logger;
}
