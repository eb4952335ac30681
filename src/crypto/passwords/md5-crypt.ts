import { createHash } from 'node:crypto';
import { constantTimeEqual } from '../random';
import { CRYPT64_CHARS, crypt64 } from './crypt64';

const FORM = /^\$1\$([^$]{0,8})\$([./0-9A-Za-z]{22})$/;
const ORDER = [
  [0, 6, 12],
  [1, 7, 13],
  [2, 8, 14],
  [3, 9, 15],
  [4, 10, 5],
];

const md5 = (...parts: (Buffer | Uint8Array)[]) => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** `$1$<salt, up to 8 chars>$<22 chars>`: the FreeBSD/glibc MD5-based crypt (1,000 fixed rounds). */
export function checkMd5Crypt(stored: string): string | undefined {
  const m = FORM.exec(stored);
  if (!m || (m[1] && !CRYPT64_CHARS.test(m[1]))) return 'malformed md5-crypt hash: expected $1$<salt>$<22 characters>';
  return undefined;
}

function md5Crypt(password: string, salt: string): string {
  const pw = Buffer.from(password, 'utf8');
  const s = Buffer.from(salt.slice(0, 8), 'utf8');
  const magic = Buffer.from('$1$');
  const alt = md5(pw, s, pw);
  const ctx = createHash('md5').update(pw).update(magic).update(s);
  for (let left = pw.length; left > 0; left -= 16) ctx.update(alt.subarray(0, Math.min(left, 16)));
  // The original C code feeds either a NUL byte or the password's first byte per bit of the length.
  for (let i = pw.length; i > 0; i >>= 1) ctx.update(i & 1 ? Buffer.of(0) : pw.subarray(0, 1));
  let fin = ctx.digest();
  for (let i = 0; i < 1000; i++) {
    const round = createHash('md5');
    round.update(i & 1 ? pw : fin);
    if (i % 3) round.update(s);
    if (i % 7) round.update(pw);
    round.update(i & 1 ? fin : pw);
    fin = round.digest();
  }
  return `$1$${salt.slice(0, 8)}$${crypt64(fin, ORDER, [-1, -1, 11, 2])}`;
}

export async function verifyMd5Crypt(stored: string, password: string): Promise<boolean> {
  const m = FORM.exec(stored);
  if (!m) return false;
  return constantTimeEqual(md5Crypt(password, m[1]), stored);
}
