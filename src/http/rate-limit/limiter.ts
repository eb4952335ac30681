import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { type RateLimiterAbstract, RateLimiterCluster, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** One limit: `points` requests per `windowSeconds`, counted per key; 0 points means no limit. */
export interface Limit {
  points: number;
  windowSeconds: number;
}

export interface RateLimiter {
  /**
   * Counts one request of `key` in `bucket` against `limit`. Answers 0 when it may pass, otherwise
   * the whole seconds until the key's window ends (the Retry-After value).
   */
  take(bucket: string, key: string, limit: Limit): Promise<number>;
}

/** How long a worker waits for the primary's count before letting the request pass. */
const CLUSTER_TIMEOUT_MS = 1000;

/**
 * Counters of rate-limiter-flexible. In a cluster worker they live in the primary process (see
 * primary.ts), so that every worker of the replica counts against the same number; otherwise in
 * this process's memory.
 *
 * The library's primary keeps the options a key prefix was first created with, so the prefix carries
 * the limit: a changed instance setting makes a new counter (its count starts at zero) instead of
 * being ignored. One counter per distinct (bucket, limit) lives as long as the process: settings
 * change rarely, and each counter's keys expire with their windows.
 */
export function createRateLimiter(log: Logger): RateLimiter {
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (bucket: string, limit: Limit) => {
    const keyPrefix = `${bucket}:${limit.points}/${limit.windowSeconds}`;
    let limiter = limiters.get(keyPrefix);
    if (!limiter) {
      const opts = { keyPrefix, points: limit.points, duration: limit.windowSeconds };
      limiter = cluster.isWorker ? new RateLimiterCluster({ ...opts, timeoutMs: CLUSTER_TIMEOUT_MS }) : new RateLimiterMemory(opts);
      limiters.set(keyPrefix, limiter);
    }
    return limiter;
  };
  let warned = 0;
  return {
    async take(bucket, key, limit) {
      if (limit.points <= 0) return 0;
      try {
        await limiterFor(bucket, limit).consume(key);
        return 0;
      } catch (err) {
        if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        // The primary did not answer in time (it is busy or restarting): an unavailable counter
        // must not take the sign-in down with it, so the request passes. Logged at most once a minute.
        if (Date.now() - warned > 60_000) {
          warned = Date.now();
          log.warn({ err, bucket }, 'rate limit counter unavailable; letting requests pass');
        }
        return 0;
      }
    },
  };
}
