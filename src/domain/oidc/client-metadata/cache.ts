/**
 * Documents are cached per process (each replica fetches on its own), for as long as their
 * Cache-Control allows: `no-store`, `no-cache` and `max-age=0` are never cached; otherwise max-age
 * (5 minutes when absent) held between 1 minute and 1 day, so that a document cannot make every
 * request refetch it nor pin itself forever. At most MAX_ENTRIES documents; the oldest go first.
 */
const DEFAULT_TTL_S = 300;
const MIN_TTL_S = 60;
const MAX_TTL_S = 24 * 3600;
const MAX_ENTRIES = 1000;

/** Seconds to keep a document, or 0 when it must not be stored. */
export function cacheSeconds(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return 0;
  const maxAge = directives.map((d) => /^max-age\s*=\s*"?(\d+)"?$/.exec(d)?.[1]).find((v) => v !== undefined);
  if (maxAge === undefined) return DEFAULT_TTL_S;
  const s = Number(maxAge);
  if (s === 0) return 0;
  return Math.min(MAX_TTL_S, Math.max(MIN_TTL_S, s));
}

export class DocumentCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  /** Concurrent requests for one URL share one fetch. */
  private readonly inflight = new Map<string, Promise<T>>();

  async get(url: string, load: () => Promise<{ value: T; ttlS: number }>): Promise<T> {
    const hit = this.entries.get(url);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    if (hit) this.entries.delete(url);
    const pending = this.inflight.get(url);
    if (pending) return pending;
    const p = load()
      .then(({ value, ttlS }) => {
        if (ttlS > 0) this.put(url, value, ttlS);
        return value;
      })
      .finally(() => this.inflight.delete(url));
    this.inflight.set(url, p);
    return p;
  }

  private put(url: string, value: T, ttlS: number): void {
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(url, { value, expiresAt: Date.now() + ttlS * 1000 });
  }
}
