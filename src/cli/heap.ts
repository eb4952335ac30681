import v8 from 'node:v8';

/**
 * V8 sizes its heap for the machine, not for a server whose live objects take some tens of megabytes:
 * with many gigabytes of memory it lets the young generation grow to 128 MB and the old generation fill
 * up to four times what survived the last full collection, so each process held 250–300 MB under load.
 * Cluster workers start with semi-spaces of 16 MB and an old generation capped at 1 GB; below 2 GB V8
 * also lets the old generation grow by a smaller factor (under 2 instead of 4) before collecting it.
 * Measured under load (npm run bench -- memory oidc, 2026-11-27): about 165 MB per worker instead of
 * 260–300 MB. Smaller semi-spaces cost throughput for every young collection they add: 4 MB held a
 * worker to 154 MB but took a quarter off userinfo (32,100 → 24,600 req/s), 8 MB 156 MB and an eighth.
 * An operator's own choice (NODE_OPTIONS or node's command line) wins.
 */
const WORKER_FLAGS: Record<string, string> = {
  '--max-semi-space-size': '16',
  '--max-old-space-size': '1024',
};

/** The node options a cluster worker is forked with: the primary's own, plus the heap sizes it does not set. */
export function workerExecArgv(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = operatorFlags(execArgv, nodeOptions);
  const added = Object.entries(WORKER_FLAGS)
    .filter(([flag]) => !given.has(flag))
    .map(([flag, value]) => `${flag}=${value}`);
  return [...execArgv, ...added];
}

/**
 * The cluster primary cannot choose its heap sizes (it is the process the operator started), but it
 * serves no requests: it supervises the workers and counts their rate limits. Keeping its young
 * generation at the size it starts with (1 MB) instead of letting V8 grow it up to 128 MB, which V8
 * then keeps, holds it to a few megabytes of heap. V8 reads this flag each time it considers growing
 * the young generation.
 */
export function keepYoungGenerationSmall(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? '') {
  const given = operatorFlags(execArgv, nodeOptions);
  if (given.has('--max-semi-space-size') || given.has('--semi-space-growth-factor')) return;
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * Two settings of glibc's allocator for the workers, each about 6–10 MB of a worker's resident memory
 * under load at the same CPU per request (npm run bench -- memory, 2026-11-27: 169–182 → 155–164 MB):
 * - MALLOC_ARENA_MAX=2: glibc gives each thread that allocates (V8's compiler and GC helpers, libuv's
 *   pool) an arena of its own, up to eight per core, and keeps what each one touched.
 * - fixed mmap and trim thresholds of 128 KiB: by default glibc raises its mmap threshold to the largest
 *   block freed so far (up to 32 MB), after which large transient blocks (compiler zones, big buffers)
 *   come from the arenas and stay resident; with a fixed threshold they are mapped and given back.
 * An operator's own MALLOC_ARENA_MAX or GLIBC_TUNABLES wins.
 */
export function workerEnv(env = process.env): Record<string, string> {
  return {
    ...(env.MALLOC_ARENA_MAX ? {} : { MALLOC_ARENA_MAX: '2' }),
    ...(env.GLIBC_TUNABLES
      ? {}
      : { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072' }),
  };
}

function operatorFlags(execArgv: readonly string[], nodeOptions: string): Set<string> {
  return new Set([...execArgv, ...nodeOptions.split(/\s+/)].map((a) => a.split('=')[0].replaceAll('_', '-')));
}
