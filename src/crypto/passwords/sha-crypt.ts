import { createHash } from 'node:crypto';
import { constantTimeEqual } from '../random';
import { CRYPT64_CHARS, crypt64 } from './crypt64';

/** Drepper's SHA-crypt: `$5$` (SHA-256) and `$6$` (SHA-512), optional `rounds=<n>$`, salt ≤ 16 chars. */
const FORM = /^\$([56])\$(?:rounds=(\d{1,9})\$)?([^$]{0,16})\$([./0-9A-Za-z]+)$/;
const DEFAULT_ROUNDS = 5000;
/** Above this one login would take seconds; the scheme itself allows up to 999,999,999. */
const MAX_SHA_CRYPT_ROUNDS = 10_000_000;

interface Variant {
  algorithm: 'sha256' | 'sha512';
  size: number;
  length: number;
  triples: number[][];
  tail: [number, number, number, number];
}

/** The byte order of the output encoding: groups of (k, k+step, k+2·step), rotated as the spec says. */
function triples(
  count: number,
  step: number,
  rotation: (k: number, a: number, b: number, c: number) => number[],
): number[][] {
  return Array.from({ length: count }, (_, k) => rotation(k, k, k + step, k + 2 * step));
}

const VARIANTS: Record<string, Variant> = {
  '5': {
    algorithm: 'sha256',
    size: 32,
    length: 43,
    triples: triples(
      10,
      10,
      (k, a, b, c) =>
        [
          [a, b, c],
          [c, a, b],
          [b, c, a],
        ][k % 3],
    ),
    tail: [-1, 31, 30, 3],
  },
  '6': {
    algorithm: 'sha512',
    size: 64,
    length: 86,
    triples: triples(
      21,
      21,
      (k, a, b, c) =>
        [
          [a, b, c],
          [b, c, a],
          [c, a, b],
        ][k % 3],
    ),
    tail: [-1, -1, 63, 2],
  },
};

export function checkShaCrypt(stored: string): string | undefined {
  const m = FORM.exec(stored);
  const v = m && VARIANTS[m[1]];
  if (!m || !v || m[4].length !== v.length || (m[3] && !CRYPT64_CHARS.test(m[3])))
    return 'malformed sha-crypt hash: expected $5$ or $6$, optional rounds=<n>$, <salt>$<hash>';
  if (m[2] && Number(m[2]) > MAX_SHA_CRYPT_ROUNDS) return `sha-crypt rounds must be at most ${MAX_SHA_CRYPT_ROUNDS}`;
  return undefined;
}

/** Repeats `source` until `length` bytes are filled (the P and S sequences of the specification). */
function stretch(source: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i += source.length) source.copy(out, i, 0, Math.min(source.length, length - i));
  return out;
}

function shaCrypt(id: '5' | '6', password: string, salt: string, rounds?: number): string {
  const v = VARIANTS[id];
  const n = Math.min(Math.max(rounds ?? DEFAULT_ROUNDS, 1000), 999_999_999);
  const pw = Buffer.from(password, 'utf8');
  const s = Buffer.from(salt.slice(0, 16), 'utf8');
  const H = () => createHash(v.algorithm);
  const b = H().update(pw).update(s).update(pw).digest();
  const actx = H().update(pw).update(s);
  for (let left = pw.length; left > 0; left -= v.size) actx.update(b.subarray(0, Math.min(left, v.size)));
  for (let i = pw.length; i > 0; i >>= 1) actx.update(i & 1 ? b : pw);
  const a = actx.digest();
  const dp = H();
  for (let i = 0; i < pw.length; i++) dp.update(pw);
  const p = stretch(dp.digest(), pw.length);
  const ds = H();
  for (let i = 0; i < 16 + a[0]; i++) ds.update(s);
  const sSeq = stretch(ds.digest(), s.length);
  let c = a;
  for (let i = 0; i < n; i++) {
    const ctx = H();
    ctx.update(i & 1 ? p : c);
    if (i % 3) ctx.update(sSeq);
    if (i % 7) ctx.update(p);
    ctx.update(i & 1 ? c : p);
    c = ctx.digest();
  }
  const roundsPart = rounds === undefined ? '' : `rounds=${n}$`;
  return `$${id}$${roundsPart}${salt.slice(0, 16)}$${crypt64(c, v.triples, v.tail)}`;
}

export async function verifyShaCrypt(stored: string, password: string): Promise<boolean> {
  const m = FORM.exec(stored);
  if (!m || checkShaCrypt(stored)) return false;
  const rounds = m[2] === undefined ? undefined : Number(m[2]);
  return constantTimeEqual(shaCrypt(m[1] as '5' | '6', password, m[3], rounds), stored);
}
