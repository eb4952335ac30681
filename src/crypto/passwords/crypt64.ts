/** The "./0-9A-Za-z" encoding of the crypt(3) family: 24-bit groups written low 6 bits first. */
const ALPHABET = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function crypt64Group(b2: number, b1: number, b0: number, chars: number): string {
  let w = (b2 << 16) | (b1 << 8) | b0;
  let out = '';
  for (let i = 0; i < chars; i++) {
    out += ALPHABET[w & 0x3f];
    w >>= 6;
  }
  return out;
}

/** Encodes `bytes` as the crypt family does: triples taken in the given byte order, then a tail. */
export function crypt64(bytes: Uint8Array, triples: number[][], tail: [number, number, number, number]): string {
  let out = '';
  for (const [a, b, c] of triples) out += crypt64Group(bytes[a], bytes[b], bytes[c], 4);
  const [a, b, c, n] = tail;
  return out + crypt64Group(a < 0 ? 0 : bytes[a], b < 0 ? 0 : bytes[b], bytes[c], n);
}

export const CRYPT64_CHARS = /^[./0-9A-Za-z]+$/;
