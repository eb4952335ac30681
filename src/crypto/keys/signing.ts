import { randomBytes } from 'node:crypto';
import { type CryptoKey, type JWK, exportJWK, generateKeyPair, importJWK, SignJWT } from 'jose';

export type SigningAlgorithm = 'RS256' | 'ES256' | 'EdDSA';
export const SIGNING_ALGORITHMS: SigningAlgorithm[] = ['RS256', 'ES256', 'EdDSA'];

export interface GeneratedKey {
  kid: string;
  publicJwk: JWK;
  privateJwk: JWK;
}

/** A fresh key pair for the algorithm; `kid` is random (128 bits). */
export async function generateSigningKey(alg: SigningAlgorithm): Promise<GeneratedKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, {
    extractable: true,
    ...(alg === 'RS256' ? { modulusLength: 2048 } : {}),
  });
  const kid = randomBytes(16).toString('base64url');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg };
  return { kid, publicJwk, privateJwk };
}

export async function importPrivateJwk(jwk: JWK, alg: string): Promise<CryptoKey> {
  return (await importJWK(jwk, alg)) as CryptoKey;
}

export interface SigningKey {
  kid: string;
  alg: string;
  key: CryptoKey;
}

/** Signs a JWT with the given key; `typ` is set for access tokens (RFC 9068: `at+jwt`). */
export async function signJwt(key: SigningKey, claims: Record<string, unknown>, typ = 'JWT'): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ }).sign(key.key);
}
