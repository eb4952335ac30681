/**
 * Base64 as found in modular-crypt strings: standard (`+/`) or passlib's "adapted" alphabet (`./`),
 * with or without `=` padding. Node's own decoder silently skips bad characters, so the alphabet is
 * checked first: a malformed hash must be rejected at import, not fail every later login.
 */
const B64 = /^[A-Za-z0-9+/.]*={0,2}$/;

// atob/btoa rather than Buffer: the Keycloak converter runs in the console's browser code too.
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const toBase64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''));

export function decodeBase64(text: string): Uint8Array | undefined {
  if (!B64.test(text) || (text.includes('+') && text.includes('.'))) return undefined;
  const body = text.replace(/=+$/, '');
  if (body.length % 4 === 1) return undefined;
  return fromBase64(body.replaceAll('.', '+'));
}

/** passlib's adapted base64: standard alphabet with `.` for `+`, no padding (safe inside `$…$`). */
export function encodeAdaptedBase64(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/=+$/, '').replaceAll('+', '.');
}

/** PHC strings (argon2, scrypt) use standard base64 without padding. */
export function encodePhcBase64(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/=+$/, '');
}
