/**
 * Base64 as found in modular-crypt strings: standard (`+/`) or passlib's "adapted" alphabet (`./`),
 * with or without `=` padding. Node's own decoder silently skips bad characters, so the alphabet is
 * checked first: a malformed hash must be rejected at import, not fail every later login.
 */
const B64 = /^[A-Za-z0-9+/.]*={0,2}$/;

export function decodeBase64(text: string): Buffer | undefined {
  if (!B64.test(text) || (text.includes('+') && text.includes('.'))) return undefined;
  const body = text.replace(/=+$/, '');
  if (body.length % 4 === 1) return undefined;
  return Buffer.from(body.replaceAll('.', '+'), 'base64');
}

/** passlib's adapted base64: standard alphabet with `.` for `+`, no padding (safe inside `$…$`). */
export function encodeAdaptedBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/=+$/, '').replaceAll('+', '.');
}

/** PHC strings (argon2, scrypt) use standard base64 without padding. */
export function encodePhcBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/=+$/, '');
}
