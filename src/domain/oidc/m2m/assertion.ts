import { MACHINE_SIGN_IN, maySignIn } from '../../session/may-sign-in';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { assertionLifetimeProblem } from '../assertion-lifetime';
import { CLIENT_JWT_ALGS } from '../client-assertion';
import { invalidGrant } from '../oauth-errors';
import { type MachineUser, machineUser } from './machines';
import { claimJtiOnce } from './replay';
import type { Source } from '../../context';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLOCK_SKEW_S = 5;
const ALGS = CLIENT_JWT_ALGS;

/**
 * The JWT profile grant's assertion (RFC 7523 §3): signed with a registered, unexpired key of the
 * machine user (`kid` picks it, else every key is tried); `iss` = `sub` = the user id; `aud`
 * contains one of `audiences` (the issuer or the token endpoint); `exp` present and not passed;
 * `iat` not older than an hour; `jti` present and never seen before. Every failure is invalid_grant.
 */
export async function verifyMachineAssertion(
  src: Source,
  assertion: string,
  audiences: string[],
  maxLifetimeS: number,
): Promise<{ machine: MachineUser; keyId: string }> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let claims: ReturnType<typeof decodeJwt>;
  try {
    header = decodeProtectedHeader(assertion);
    claims = decodeJwt(assertion);
  } catch {
    throw invalidGrant('assertion is not a JWT');
  }
  if (!header.alg || !ALGS.includes(header.alg)) throw invalidGrant('assertion: algorithm not allowed');
  if (typeof claims.sub !== 'string' || claims.iss !== claims.sub)
    throw invalidGrant('assertion: iss and sub must both be the user id');
  const machine = await machineUser(src, claims.sub);
  if (!machine) throw invalidGrant('assertion: unknown service user');
  if (!maySignIn(machine, MACHINE_SIGN_IN)) throw invalidGrant('assertion: the service user is not active');
  const candidates = machine.keys.filter((k) => !header.kid || k.id === header.kid);
  if (!candidates.length) throw invalidGrant('assertion: no registered key of the service user matches');
  const now = Date.now();
  const live = candidates.filter((k) => !k.expiresAt || k.expiresAt.getTime() > now);
  if (!live.length) throw invalidGrant('assertion: the key has expired');
  let keyId: string | undefined;
  for (const k of live) {
    try {
      await jwtVerify(assertion, k.key, { algorithms: [header.alg], clockTolerance: CLOCK_SKEW_S });
      keyId = k.id;
      break;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (
        code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' ||
        code === 'ERR_JOSE_NOT_SUPPORTED' ||
        code === 'ERR_JWS_INVALID'
      )
        continue;
      throw invalidGrant(`assertion rejected: ${(err as Error).message}`);
    }
  }
  if (!keyId) throw invalidGrant('assertion: signature does not match a registered key');
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.some((a) => typeof a === 'string' && audiences.includes(a)))
    throw invalidGrant('assertion: aud must contain the issuer');
  const lifetime = assertionLifetimeProblem(claims, maxLifetimeS, { requireIat: true }, now / 1000);
  if (lifetime) throw invalidGrant(`assertion: ${lifetime}`);
  if (typeof claims.jti !== 'string' || !claims.jti) throw invalidGrant('assertion: jti is missing');
  if (!(await claimJtiOnce(src, `${machine.user.id}:${claims.jti}`, new Date((claims.exp as number) * 1000)))) {
    throw invalidGrant('assertion: jti was already used (replay)');
  }
  return { machine, keyId };
}
