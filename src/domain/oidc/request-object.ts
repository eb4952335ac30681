import { type CryptoKey, decodeProtectedHeader, importSPKI, type JWTPayload, jwtVerify } from 'jose';
import { ASSERTION_CLOCK_SKEW_S, assertionLifetimeProblem } from './assertion-lifetime';
import { CLIENT_JWT_ALGS } from './client-assertion';
import type { OidcClient } from './clients';
import { claimJtiOnce } from './m2m/replay';
import { invalidRequestObject } from './oauth-errors';
import type { Source } from '../context';

/** Request objects are signed with the same algorithms as client assertions; `none` is never accepted. */
export const REQUEST_OBJECT_ALGS = CLIENT_JWT_ALGS;

/** Claims of the JWT itself, not parameters of the authorization request. */
const JWT_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'sub']);

/**
 * A `request` parameter (RFC 9101, OIDC Core §6.1): a JWT signed with a registered, unexpired key of
 * the client (the keys of private_key_jwt applications), `iss` the client id, `aud` the issuer, `exp`
 * present, in the future and at most `maxLifetimeS` ahead, its `jti` (when it has one) used once on any
 * replica until `exp` — a captured request object cannot start a second sign-in. Answers its claims as
 * authorization request
 * parameters (numbers and objects such as `claims` in their JSON text). Anything else fails with
 * invalid_request_object: an unsigned object would let whoever handles the URL rewrite the request.
 */
export async function verifyRequestObject(
  client: OidcClient,
  jwt: string,
  opts: { src: Source; issuer: string; maxLifetimeS: number },
): Promise<Record<string, string>> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    throw invalidRequestObject('request is not a JWS (an encrypted request object is not supported)');
  }
  if (!header.alg || !REQUEST_OBJECT_ALGS.includes(header.alg)) {
    throw invalidRequestObject(`request object algorithm ${header.alg ?? '(none)'} is not accepted; sign it`);
  }
  if (client.keys.length === 0) {
    throw invalidRequestObject(
      'the client has no registered keys to verify request objects with; add an application key ' +
        '(auth method PRIVATE_KEY_JWT) or send the parameters without a request object',
    );
  }
  const payload = await verifiedPayload(client, jwt, header.alg, header.kid);
  if (payload.iss !== client.clientId) throw invalidRequestObject('request object iss must be the client id');
  const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!aud.some((a) => a === opts.issuer || a === `${opts.issuer}/`)) {
    throw invalidRequestObject('request object aud must be the issuer');
  }
  const lifetime = assertionLifetimeProblem(payload, opts.maxLifetimeS, { requireIat: false });
  if (lifetime) throw invalidRequestObject(`request object: ${lifetime}`);
  await useJtiOnce(opts.src, client.clientId, payload);
  return claimsAsParams(payload);
}

// The single-use ids of JWT-profile assertions hold these too, under a prefix no user id has.
async function useJtiOnce(src: Source, clientId: string, payload: JWTPayload): Promise<void> {
  if (payload.jti === undefined) return;
  if (typeof payload.jti !== 'string' || !payload.jti || payload.jti.length > 256)
    throw invalidRequestObject('request object jti must be a string of 1 to 256 characters');
  const until = new Date((payload.exp as number) * 1000);
  if (!(await claimJtiOnce(src, `request-object:${clientId}:${payload.jti}`, until)))
    throw invalidRequestObject('request object jti was already used: send a new request object');
}

async function verifiedPayload(client: OidcClient, jwt: string, alg: string, kid: string | undefined) {
  const now = Date.now();
  const keys = client.keys.filter((k) => (!kid || k.id === kid) && (!k.expiresAt || k.expiresAt.getTime() > now));
  for (const k of keys) {
    let key: CryptoKey;
    try {
      key = await importSPKI(k.publicKey, alg);
    } catch {
      continue; // a key of another type (an RSA key for an ES256 object)
    }
    try {
      const { payload } = await jwtVerify(jwt, key, { algorithms: [alg], clockTolerance: ASSERTION_CLOCK_SKEW_S });
      return payload;
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') continue;
      throw invalidRequestObject(`request object rejected: ${(err as Error).message}`);
    }
  }
  throw invalidRequestObject('request object signature does not match a registered key of the client');
}

function claimsAsParams(payload: JWTPayload): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) {
    if (JWT_CLAIMS.has(name) || value === null || value === undefined) continue;
    // RFC 9101 §4: a request object does not point at another one
    if (name === 'request' || name === 'request_uri') {
      throw invalidRequestObject(`request object must not contain ${name}`);
    }
    out[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return out;
}
