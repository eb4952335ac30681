import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random token of `bytes` bytes (default 32 = 256 bits), base64url, with an optional prefix. */
export function randomToken(bytes = 32, prefix = ''): string {
  return prefix + randomBytes(bytes).toString('base64url');
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
