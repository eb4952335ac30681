import { decodeBase64 } from './base64';

/** The PHC form of argon2i / argon2id / argon2d, with any parameters within the limits below. */
const FORM = /^\$argon2(id|i|d)\$v=(16|19)\$m=(\d{1,7}),t=(\d{1,4}),p=(\d{1,3})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** Memory per verification (KiB): above this one login could exhaust the server. */
const MAX_ARGON2_MEMORY_KIB = 1024 * 1024;

export function checkArgon2(stored: string): string | undefined {
  const m = FORM.exec(stored);
  if (!m) return 'malformed argon2 hash: expected $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>';
  const [memory, passes, lanes] = [Number(m[3]), Number(m[4]), Number(m[5])];
  if (lanes < 1 || passes < 1 || memory < 8 * lanes) return 'argon2 parameters out of range';
  if (memory > MAX_ARGON2_MEMORY_KIB) return `argon2 memory must be at most ${MAX_ARGON2_MEMORY_KIB} KiB`;
  const salt = decodeBase64(m[6]);
  const hash = decodeBase64(m[7]);
  if (!salt || salt.length < 8) return 'argon2 salt must be at least 8 bytes';
  if (!hash || hash.length < 4) return 'argon2 hash must be at least 4 bytes';
  return undefined;
}
