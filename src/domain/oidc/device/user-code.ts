import { secureRandomBytes } from '../../../crypto/random';

/**
 * Consonants only (RFC 8628 §6.1): no vowels, so no words, and no letters that read like digits or
 * like each other (no I/L/1, O/0, U/V in pairs that confuse). 20^8 ≈ 2.6·10^10 codes.
 */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

/** A new user code (stored form: 8 letters, no dash), drawn without modulo bias. */
export function newUserCode(): string {
  let out = '';
  while (out.length < USER_CODE_LENGTH) {
    for (const byte of secureRandomBytes(USER_CODE_LENGTH)) {
      // 240 = 12 × 20: bytes above it would favour the first letters
      if (byte < 240 && out.length < USER_CODE_LENGTH) out += USER_CODE_ALPHABET[byte % 20];
    }
  }
  return out;
}

/** What the user sees and types: `BCDF-GHJK`. */
export const displayUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/**
 * What the user typed, in stored form: case, dashes and spaces do not matter. Anything that cannot be
 * a user code is undefined, so it never reaches the database.
 */
export function normalizeUserCode(typed: string | undefined): string | undefined {
  const code = (typed ?? '').toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== USER_CODE_LENGTH) return undefined;
  for (const ch of code) if (!USER_CODE_ALPHABET.includes(ch)) return undefined;
  return code;
}
