import { createCipheriv, createDecipheriv } from 'node:crypto';
import { derivedKey } from '../../../crypto/keys/derived-key';
import { secureRandomBytes } from '../../../crypto/random';

/** Prefix of the machine grants' opaque access tokens. */
export const MACHINE_OPAQUE_PREFIX = 'pcm_';

const tokenKey = (masterKey: Buffer) => derivedKey(masterKey, 'portcullis m2m opaque access token v1');

/**
 * An opaque access token that carries its own claims, sealed with AES-256-GCM under a key derived
 * from the master key: issuing it writes nothing, and every replica (sharing the master key) can
 * read it. To its holder it is an unreadable random string. Revocation is a stored `jti`.
 */
export function sealToken(masterKey: Buffer, claims: object): string {
  const iv = secureRandomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', tokenKey(masterKey), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(claims), 'utf8'), cipher.final()]);
  return MACHINE_OPAQUE_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

/** The claims of a sealed token, or undefined when it was not sealed by us (or was altered). */
export function openToken<T>(masterKey: Buffer, token: string): T | undefined {
  try {
    const raw = Buffer.from(token.slice(MACHINE_OPAQUE_PREFIX.length), 'base64url');
    if (raw.length < 29) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', tokenKey(masterKey), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const text = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
