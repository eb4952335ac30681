import { importPKCS8, SignJWT } from 'jose';

export const APPLE_ISSUER = 'https://appleid.apple.com';
/** Apple refuses client secrets that live longer than six months. */
const APPLE_MAX_SECRET_SECONDS = 15_777_000;

export interface AppleSigningKey {
  teamId: string;
  keyId: string;
  privateKeyPem: string;
}

/**
 * Sign in with Apple has no static client secret: the client_secret is a short JWT signed (ES256)
 * with a key from the Apple developer account. A fresh one per code exchange keeps it short-lived.
 */
export async function appleClientSecret(key: AppleSigningKey, clientId: string, ttlSeconds = 300): Promise<string> {
  const ttl = Math.min(Math.max(1, Math.floor(ttlSeconds)), APPLE_MAX_SECRET_SECONDS);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: key.keyId })
    .setIssuer(key.teamId)
    .setSubject(clientId)
    .setAudience(APPLE_ISSUER)
    .setIssuedAt(now)
    .setExpirationTime(now + ttl)
    .sign(await importPKCS8(key.privateKeyPem, 'ES256'));
}

/**
 * Apple sends the user's name only once, at the first sign-in, as a JSON `user` form field next to
 * the code (never in the ID token). Returns the claims it adds, or nothing when absent or malformed.
 */
export function appleUserClaims(user: string | null): Record<string, unknown> {
  if (!user) return {};
  try {
    const parsed = JSON.parse(user) as { name?: { firstName?: unknown; lastName?: unknown } };
    const out: Record<string, unknown> = {};
    if (typeof parsed.name?.firstName === 'string') out.given_name = parsed.name.firstName;
    if (typeof parsed.name?.lastName === 'string') out.family_name = parsed.name.lastName;
    return out;
  } catch {
    return {};
  }
}
