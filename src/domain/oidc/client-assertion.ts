import { lt } from 'drizzle-orm';
import { type CryptoKey, decodeProtectedHeader, importSPKI, type JWTPayload, jwtVerify } from 'jose';
import type { Db } from '../../db/client';
import { usedAssertions } from '../../db/schema/index';
import { assertionLifetimeProblem } from './assertion-lifetime';
import type { OidcClient } from './clients';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Algorithms accepted for JWTs that clients sign (client assertions, JWT profile); discovery lists them. */
export const CLIENT_JWT_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/**
 * private_key_jwt (RFC 7523): signed by a registered, unexpired key of the application; iss and sub
 * are the client id; aud names the issuer or the endpoint; exp present and not passed; iat not too
 * old; the jti is accepted once (replays fail until the assertion would have expired anyway).
 * Returns a reason on failure.
 */
export async function verifyClientAssertion(
  db: Db,
  client: OidcClient,
  assertion: string,
  audiences: string[],
  maxLifetimeS: number,
  /** a security profile's narrower rules: fewer algorithms, `aud` a single string (FAPI 2.0) */
  profile: { algorithms?: readonly string[]; singleAudience?: boolean } = {},
): Promise<string | undefined> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(assertion);
  } catch {
    return 'client_assertion is not a JWT';
  }
  const algorithms = profile.algorithms ?? CLIENT_JWT_ALGS;
  if (!header.alg || !algorithms.includes(header.alg))
    return `client_assertion algorithm not allowed (use one of ${algorithms.join(', ')})`;
  const now = Date.now();
  const keys = client.keys.filter(
    (k) => (!header.kid || k.id === header.kid) && (!k.expiresAt || k.expiresAt.getTime() > now),
  );
  for (const k of keys) {
    let key: CryptoKey;
    try {
      key = await importSPKI(k.publicKey, header.alg);
    } catch {
      continue;
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(assertion, key, { algorithms: [header.alg], clockTolerance: 5 }));
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') continue;
      return `client_assertion rejected: ${(err as Error).message}`;
    }
    if (payload.iss !== client.clientId || payload.sub !== client.clientId)
      return 'client_assertion iss and sub must be the client id';
    if (profile.singleAudience && (typeof payload.aud !== 'string' || !audiences.includes(payload.aud)))
      return `client_assertion aud must be the issuer ${audiences[0]} as a single string`;
    const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!aud.some((a) => typeof a === 'string' && audiences.includes(a)))
      return 'client_assertion aud must contain the issuer';
    const lifetime = assertionLifetimeProblem(payload, maxLifetimeS, { requireIat: false });
    if (lifetime) return `client_assertion: ${lifetime}`;
    if (typeof payload.jti !== 'string' || !payload.jti) return 'client_assertion needs jti';
    const fresh = await db
      .insert(usedAssertions)
      .values({ id: `${client.clientId}:${payload.jti}`, expiresAt: new Date((payload.exp as number) * 1000) })
      .onConflictDoNothing()
      .returning({ id: usedAssertions.id });
    if (fresh.length === 0) return 'client_assertion was already used (jti replay)';
    return undefined;
  }
  return 'client_assertion signature does not match a registered key';
}

/** Forgets replay entries whose assertions have expired. */
export async function pruneUsedAssertions(db: Db): Promise<void> {
  await db.delete(usedAssertions).where(lt(usedAssertions.expiresAt, new Date()));
}
