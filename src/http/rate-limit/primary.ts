import cluster from 'node:cluster';
import { TokenBuckets } from './token-bucket';

export const COUNT_MESSAGE = 'portcullis:rate-limit';

/** The IPC message of a count: a worker asks, the primary answers with the same id. */
export interface CountRequest {
  type: typeof COUNT_MESSAGE;
  id: number;
  key: string;
  capacity: number;
  windowSeconds: number;
}

/**
 * The cluster primary keeps the token buckets of all its workers: they ask it over the IPC channel
 * that node:cluster opens, so a limit holds for the replica as a whole, however the connections are
 * spread. Runs before the first worker is forked.
 */
export function startRateLimitPrimary(): void {
  const buckets = new TokenBuckets();
  cluster.on('message', (worker, msg: CountRequest) => {
    if (msg?.type !== COUNT_MESSAGE) return;
    const waitMs = buckets.take(msg.key, msg.capacity, msg.windowSeconds);
    worker.send({ type: COUNT_MESSAGE, id: msg.id, waitMs });
  });
}
