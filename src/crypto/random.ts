import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// Drawing from OpenSSL's generator costs about the same for 16 bytes as for 4 KiB (each call takes its
// locks and checks), and token endpoints draw on every request: so draw a block and hand out slices,
// as Node's own randomUUID does. Every slice is handed out once and copied out of the pool.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/** `n` bytes from the system CSPRNG (pooled for small sizes). */
export function secureRandomBytes(n: number): Buffer {
  if (n > 256) return randomBytes(n);
  if (offset + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const out = Buffer.from(pool.subarray(offset, offset + n));
  offset += n;
  return out;
}

/** A random token of `bytes` bytes (default 32 = 256 bits), base64url, with an optional prefix. */
export function randomToken(bytes = 32, prefix = ''): string {
  return prefix + secureRandomBytes(bytes).toString('base64url');
}

/** A password that satisfies any sane complexity policy (upper, lower, digit, symbol). */
export function randomPassword(): string {
  return `${randomBytes(12).toString('base64url')}aA1!`;
}

/** SHA-256 (hex) of a high-entropy token: enough to store tokens that are never guessable. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
