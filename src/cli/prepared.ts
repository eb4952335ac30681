import type { Database } from '../db/client';
import type { BootstrapResult } from '../domain/bootstrap';

/**
 * In a cluster, the primary forks one worker with this variable set: that worker migrates and
 * bootstraps the database, tells the primary with a PreparedMessage, and runs the background jobs
 * while it serves. The primary forks the other workers once the message came, and gives the worker
 * that replaces a crashed preparing worker the variable again.
 */
export const PREPARING_WORKER = 'PORTCULLIS_PREPARING_WORKER';

const PREPARED = 'portcullis:prepared';

export interface PreparedMessage {
  type: typeof PREPARED;
  databaseKind: Database['kind'];
  bootstrap: BootstrapResult;
}

export function preparedMessage(databaseKind: Database['kind'], bootstrap: BootstrapResult): PreparedMessage {
  return { type: PREPARED, databaseKind, bootstrap };
}

export function isPreparedMessage(msg: unknown): msg is PreparedMessage {
  return (msg as PreparedMessage | undefined)?.type === PREPARED;
}
