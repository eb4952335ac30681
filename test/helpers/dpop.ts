import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** A client's DPoP key pair (ES256 unless told), with its public JWK and thumbprint (`jkt`). */
export async function dpopKey(alg = 'ES256') {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { alg, privateKey, publicKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}
export type DpopKey = Awaited<ReturnType<typeof dpopKey>>;

/** RFC 9449 §4.2 `ath`. */
export const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * A DPoP proof made by hand, so that tests can break exactly one rule: `claims` and `header`
 * override the correct values (undefined removes a claim); `signWith` signs with another key than
 * the one in the `jwk` header.
 */
export async function proof(
  key: DpopKey,
  htm: string,
  htu: string,
  opts: {
    token?: string;
    nonce?: string;
    claims?: Record<string, unknown>;
    header?: Record<string, unknown>;
    signWith?: DpopKey;
  } = {},
): Promise<string> {
  const claims: Record<string, unknown> = {
    jti: randomUUID(),
    htm,
    htu,
    iat: Math.floor(Date.now() / 1000),
    ...(opts.token ? { ath: ath(opts.token) } : {}),
    ...(opts.nonce ? { nonce: opts.nonce } : {}),
    ...opts.claims,
  };
  for (const k of Object.keys(claims)) if (claims[k] === undefined) delete claims[k];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.jwk as JWK, ...opts.header })
    .sign((opts.signWith ?? key).privateKey);
}
