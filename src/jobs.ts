import type { Deps } from './deps';

/**
 * Periodic work of the process (signing key rotation, outbox delivery, cleanup of expired rows).
 * Each job coordinates through the database, so running it on several replicas is safe.
 */
export interface BackgroundJobs {
  /** names of the jobs running, in start order */
  readonly names: readonly string[];
  stop(): Promise<void>;
}

export type Job = { name: string; intervalMs: number; run: (deps: Deps) => Promise<void> };

/**
 * Runs each of `jobs` on its interval until stop(). Areas export their jobs as values and the
 * composition root passes the list (src/wiring.ts), so a job runs because it is on that list, not
 * because some module happened to import the file that defines it.
 */
export async function startBackgroundJobs(deps: Deps, jobs: readonly Job[]): Promise<BackgroundJobs> {
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
    names: jobs.map((j) => j.name),
    async stop() {
      for (const t of timers) clearInterval(t);
      while (running > 0) await new Promise((r) => setTimeout(r, 20));
    },
  };
}
