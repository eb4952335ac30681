import { createPublicKey } from 'node:crypto';

/** A stored public key (SPKI PEM) as the JWK a client registered, with its key id as `kid`. */
export function publicJwk(key: { id: string; publicKey: string }): Record<string, unknown> {
  return { ...createPublicKey(key.publicKey).export({ format: 'jwk' }), kid: key.id };
}
