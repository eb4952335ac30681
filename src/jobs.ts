import type { Deps } from './deps';

/**
 * Periodic work of the process (signing key rotation, outbox delivery, cleanup of expired rows).
 * Each job coordinates through the database, so running it on several replicas is safe.
 */
export interface BackgroundJobs {
  stop(): Promise<void>;
}

export type Job = { name: string; intervalMs: number; run: (deps: Deps) => Promise<void> };
const jobs: Job[] = [];

/** Areas register their jobs at import time. */
export function registerJob(job: Job): void {
  jobs.push(job);
}

export async function startBackgroundJobs(deps: Deps): Promise<BackgroundJobs> {
  const timers: NodeJS.Timeout[] = [];
  let running = 0;
  for (const job of jobs) {
    const tick = async () => {
      running++;
      try {
        await job.run(deps);
      } catch (err) {
        deps.log.warn({ err, job: job.name }, 'background job failed; it will run again');
      } finally {
        running--;
      }
    };
    timers.push(setInterval(tick, job.intervalMs).unref());
  }
  return {
    async stop() {
      for (const t of timers) clearInterval(t);
      while (running > 0) await new Promise((r) => setTimeout(r, 20));
    },
  };
}
