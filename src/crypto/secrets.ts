import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Client secrets are 256-bit random strings, so a fast keyed hash (HMAC-SHA256 with a per-secret
 * salt) protects them as well as argon2 would and costs microseconds: token endpoints stay fast.
 * Stored form: `hmac-sha256$<salt b64url>$<mac b64url>`.
 */
export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  return `hmac-sha256$${salt.toString('base64url')}$${mac(salt, secret).toString('base64url')}`;
}

export function verifySecret(stored: string | null | undefined, secret: string): boolean {
  const parts = stored?.split('$');
  if (!parts || parts.length !== 3 || parts[0] !== 'hmac-sha256') return false;
  const expected = Buffer.from(parts[2], 'base64url');
  const actual = mac(Buffer.from(parts[1], 'base64url'), secret);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function mac(salt: Buffer, secret: string): Buffer {
  return createHmac('sha256', salt).update(secret).digest();
}
