import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { COUNT_MESSAGE, type Count, type CountAnswers, type CountBatch } from './primary';
import { TokenBuckets } from './token-bucket';

/** One limit: a bucket of `points` tokens that refills completely in `windowSeconds`; 0 points means no limit. */
export interface Limit {
  points: number;
  windowSeconds: number;
}

export interface RateLimiter {
  /**
   * Takes a token of `key` in `bucket` under `limit`. Answers 0 when the request may pass, otherwise
   * the whole seconds until a token is back (the Retry-After value).
   */
  take(bucket: string, key: string, limit: Limit): Promise<number>;
}

/** How long a worker waits for the primary's answer before letting the request pass. */
const CLUSTER_TIMEOUT_MS = 1000;

/**
 * Token buckets (token-bucket.ts). In a cluster worker they live in the primary process (see
 * primary.ts), so that every worker of the replica takes from the same bucket; otherwise in this
 * process's memory. Counting is a few lines of arithmetic, so it is ours; what a library would add
 * here (stores in Redis or a database) is not needed for limits per replica.
 */
export function createRateLimiter(log: Logger): RateLimiter {
  const count = cluster.isWorker ? askPrimary(log) : localBuckets();
  return {
    async take(bucket, key, limit) {
      if (limit.points <= 0) return 0;
      // The limit is part of the key: a changed limit starts every key with a full bucket.
      const waitMs = await count(`${bucket}:${limit.points}/${limit.windowSeconds}\u0000${key}`, limit);
      return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
    },
  };
}

function localBuckets() {
  const buckets = new TokenBuckets();
  return async (key: string, limit: Limit) => buckets.take(key, limit.points, limit.windowSeconds);
}

function askPrimary(log: Logger) {
  const pending = new Map<number, (waitMs: number) => void>();
  let queued: Count[] = [];
  let nextId = 0;
  let warned = 0;
  process.on('message', (msg: CountAnswers) => {
    if (msg?.type !== COUNT_MESSAGE) return;
    for (const [id, waitMs] of msg.answers) {
      pending.get(id)?.(waitMs);
      pending.delete(id);
    }
  });
  // After the event loop's poll phase: every request that arrived in this turn has queued its count.
  const flush = () => {
    const batch: CountBatch = { type: COUNT_MESSAGE, counts: queued };
    queued = [];
    process.send!(batch);
  };
  return (key: string, limit: Limit) =>
    new Promise<number>((resolve) => {
      const id = nextId++;
      // The primary did not answer in time (busy or restarting): an unavailable counter must not take
      // the sign-in down with it, so the request passes. Logged at most once a minute.
      const timer = setTimeout(() => {
        pending.delete(id);
        if (Date.now() - warned > 60_000) {
          warned = Date.now();
          log.warn({ bucket: key.split('\u0000')[0] }, 'rate limit counter unavailable; letting requests pass');
        }
        resolve(0);
      }, CLUSTER_TIMEOUT_MS);
      pending.set(id, (waitMs) => {
        clearTimeout(timer);
        resolve(waitMs);
      });
      if (queued.length === 0) setImmediate(flush);
      queued.push({ id, key, capacity: limit.points, windowSeconds: limit.windowSeconds });
    });
}
