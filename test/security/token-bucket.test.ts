import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../src/http/rate-limit/token-bucket';

/** The counting behind every rate limit, on a clock the test sets. */
describe('token buckets', () => {
  const passes = (b: TokenBuckets, n: number, now: number) =>
    Array.from({ length: n }, () => b.take('k', 10, 60, now)).filter((w) => w === 0).length;

  it('let the whole limit through at once, then one request per refill interval', () => {
    const b = new TokenBuckets();
    expect(passes(b, 15, 0)).toBe(10);
    // Ten per 60 s: a token is back every 6 s, and the refused request is told so.
    expect(b.take('k', 10, 60, 0)).toBe(6000);
    expect(passes(b, 3, 5999)).toBe(0);
    expect(passes(b, 3, 6000)).toBe(1);
    expect(passes(b, 3, 18_000)).toBe(2);
    expect(passes(b, 20, 120_000)).toBe(10);
  });

  it('never let twice the limit through around what would be a window edge', () => {
    const b = new TokenBuckets();
    expect(passes(b, 10, 59_000)).toBe(10);
    // A fixed window would start afresh at 60 s; the bucket has refilled only 1/60 of a minute.
    expect(passes(b, 10, 60_000)).toBe(0);
    expect(passes(b, 10, 65_000)).toBe(1);
  });

  it('keep keys apart', () => {
    const b = new TokenBuckets();
    expect(passes(b, 10, 0)).toBe(10);
    expect(b.take('other', 10, 60, 0)).toBe(0);
  });
});
