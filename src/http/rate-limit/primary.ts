import { RateLimiterClusterMaster } from 'rate-limiter-flexible';

/**
 * The cluster primary keeps the counters of all its workers (rate-limiter-flexible's cluster mode:
 * workers ask it over the IPC channel that node:cluster opens), so a limit holds for the replica as
 * a whole, however the connections are spread. Must run before the first worker is forked: a worker
 * whose first message finds no listener would wait for an answer that never comes.
 */
export function startRateLimitPrimary(): void {
  new RateLimiterClusterMaster();
}
