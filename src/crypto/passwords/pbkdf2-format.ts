import { decodeBase64, encodeAdaptedBase64 } from './base64';

// The form without the computation (pbkdf2.ts): the Keycloak converter runs in the browser too.

/** Iteration counts above this would let one imported hash pin a core for seconds per login. */
export const MAX_PBKDF2_ITERATIONS = 10_000_000;

const DIGESTS: Record<string, string> = {
  pbkdf2: 'sha1',
  'pbkdf2-sha1': 'sha1',
  'pbkdf2-sha256': 'sha256',
  'pbkdf2-sha512': 'sha512',
};
const FORM = /^\$(pbkdf2(?:-sha1|-sha256|-sha512)?)\$(\d{1,9})\$([^$]+)\$([^$]+)$/;

interface Pbkdf2Hash {
  digest: string;
  iterations: number;
  salt: Uint8Array;
  key: Uint8Array;
}

/**
 * `$pbkdf2[-sha1|-sha256|-sha512]$<iterations>$<salt>$<derived key>`, salt and key in standard or
 * adapted base64. The derived key length is the stored key's length (Keycloak writes 32 or 64 bytes).
 */
export function parsePbkdf2(stored: string): Pbkdf2Hash | string {
  const m = FORM.exec(stored);
  if (!m) return 'malformed pbkdf2 hash: expected $pbkdf2-<digest>$<iterations>$<salt>$<hash>';
  const iterations = Number(m[2]);
  if (iterations < 1 || iterations > MAX_PBKDF2_ITERATIONS)
    return `pbkdf2 iterations must be between 1 and ${MAX_PBKDF2_ITERATIONS}`;
  const salt = decodeBase64(m[3]);
  const key = decodeBase64(m[4]);
  if (!salt || salt.length === 0) return 'pbkdf2 salt is not valid base64';
  if (!key || key.length < 16) return 'pbkdf2 hash is not valid base64 of at least 16 bytes';
  return { digest: DIGESTS[m[1]], iterations, salt, key };
}

/** Writes the modular-crypt form that parsePbkdf2 reads (adapted base64, as passlib does). */
export function formatPbkdf2(
  digest: 'sha1' | 'sha256' | 'sha512',
  iterations: number,
  salt: Uint8Array,
  key: Uint8Array,
): string {
  const name = digest === 'sha1' ? 'pbkdf2' : `pbkdf2-${digest}`;
  return `$${name}$${iterations}$${encodeAdaptedBase64(salt)}$${encodeAdaptedBase64(key)}`;
}
