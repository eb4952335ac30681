import { scrypt, timingSafeEqual } from 'node:crypto';
import { decodeBase64 } from './base64';

const FORM = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([^$]+)\$([^$]+)$/;

/** Memory one verification may take (128·N·r bytes): beyond this a hash is refused at import. */
const MAX_MEMORY = 256 * 1024 * 1024;

interface ScryptHash {
  N: number;
  r: number;
  p: number;
  salt: Uint8Array;
  key: Uint8Array;
}

/** `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>` (passlib's form), base64 standard or adapted. */
export function parseScrypt(stored: string): ScryptHash | string {
  const m = FORM.exec(stored);
  if (!m) return 'malformed scrypt hash: expected $scrypt$ln=<n>,r=<r>,p=<p>$<salt>$<hash>';
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 1 || r < 1 || p < 1 || p > 16) return 'scrypt parameters out of range';
  const N = 2 ** ln;
  if (128 * N * r > MAX_MEMORY) return 'scrypt parameters need more than 256 MiB';
  const salt = decodeBase64(m[4]);
  const key = decodeBase64(m[5]);
  if (!salt || salt.length === 0) return 'scrypt salt is not valid base64';
  if (!key || key.length < 16) return 'scrypt hash is not valid base64 of at least 16 bytes';
  return { N, r, p, salt, key };
}

export function verifyScrypt(stored: string, password: string): Promise<boolean> {
  const h = parseScrypt(stored);
  if (typeof h === 'string') return Promise.resolve(false);
  const { N, r, p, salt, key } = h;
  return new Promise((resolve) => {
    scrypt(password, salt, key.length, { N, r, p, maxmem: 128 * N * r * 2 + 1024 * 1024 }, (err, derived) => {
      resolve(!err && timingSafeEqual(derived, key));
    });
  });
}
