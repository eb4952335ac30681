/**
 * Token buckets, one per key: a bucket holds up to `capacity` tokens, a request takes one, and tokens
 * come back continuously at `capacity / windowSeconds` per second. So a client may burst up to the
 * limit, then goes on at the limit's average rate — never more than `capacity` plus the refill of the
 * time that passed, unlike fixed windows that let twice the limit through across a window's edge.
 *
 * Only a time is stored per key (the generic cell rate algorithm: the moment the bucket will be full
 * again), and keys whose bucket is full are forgotten, so memory holds only the keys active within
 * one window.
 */
export class TokenBuckets {
  /** key → the time (ms) at which the bucket is full again */
  private full = new Map<string, number>();
  private lastSweep = 0;

  /** Takes one token; returns 0 when it was there, else the milliseconds until one is. */
  take(key: string, capacity: number, windowSeconds: number, now = Date.now()): number {
    const interval = (windowSeconds * 1000) / capacity;
    const fullAt = Math.max(this.full.get(key) ?? now, now);
    // Taking a token moves "full again" one interval later; it may lie at most a window ahead.
    const next = fullAt + interval;
    if (next - now > windowSeconds * 1000) return Math.ceil(next - now - windowSeconds * 1000);
    this.full.set(key, next);
    this.sweep(now);
    return 0;
  }

  /** Forgets full buckets now and then (they are the same as an unknown key). */
  private sweep(now: number) {
    if (now - this.lastSweep < 10_000 && this.full.size < 100_000) return;
    this.lastSweep = now;
    for (const [key, fullAt] of this.full) if (fullAt <= now) this.full.delete(key);
  }
}
