import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, EmbeddedJWK, errors, type JWK, jwtVerify } from 'jose';
import { dpopUsedProofs } from '../../../db/schema/index';
import { claimJtiOnce } from '../m2m/replay';
import { invalidDpopProof, useDpopNonce } from '../oauth-errors';
import { isValidDpopNonce } from './nonce';
import type { Source } from '../../context';

/**
 * Proof algorithms we accept (discovery `dpop_signing_alg_values_supported`): asymmetric only, so
 * the `jwk` header can be a public key (RFC 9449 §4.2). `none` and HMAC are refused.
 */
export const DPOP_ALGS = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
];

/** A proof's `iat` may be this old: a proof is made for one request, right before it. */
export const DPOP_PROOF_MAX_AGE_S = 60;
/** …and this far in the future (the client's clock running ahead of ours). */
export const DPOP_PROOF_FUTURE_SKEW_S = 5;
const MAX_JTI_LENGTH = 256;

export interface ProofRequest {
  /** the `DPoP` header's value */
  proof: string;
  /** the HTTP method of the request (`htm`) */
  method: string;
  /** the external URL of the request (`htu`); query and fragment are ignored on both sides */
  url: string;
  /** at a resource server: the access token the proof must name in `ath` */
  accessToken?: string;
  /** the server requires its nonce in this proof (§8) */
  requireNonce?: boolean;
  /** a security profile's narrower list of algorithms (FAPI 2.0); default DPOP_ALGS */
  algorithms?: readonly string[];
}

/** The URL as compared for `htu` (RFC 9449 §4.3): normalized, without query and fragment. */
function htuForm(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return undefined;
  }
}

/** RFC 9449 §4.2 `ath`: base64url of the SHA-256 of the access token. */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/**
 * Checks a DPoP proof (RFC 9449 §4.3) and returns the thumbprint (`jkt`, RFC 7638) of its key:
 * typ `dpop+jwt`, an asymmetric alg of DPOP_ALGS, a signature by the public key in its `jwk` header
 * (a private key there is refused), `htm` and `htu` of this request, `iat` within
 * [-DPOP_PROOF_MAX_AGE_S, +DPOP_PROOF_FUTURE_SKEW_S], `ath` when a token is presented, our nonce when
 * required, and a `jti` never seen before on any replica (the last check, so a bad proof burns nothing).
 * Failures are invalid_dpop_proof; a missing or stale nonce is use_dpop_nonce.
 */
export async function verifyDpopProof(src: Source, masterKey: Buffer, r: ProofRequest): Promise<{ jkt: string }> {
  // several DPoP headers arrive joined with ", "; a compact JWS has neither commas nor spaces
  if (/[,\s]/.test(r.proof)) throw invalidDpopProof('send exactly one DPoP header with one proof');
  let header: { jwk?: JWK };
  let claims: Record<string, unknown>;
  try {
    const algorithms = [...(r.algorithms ?? DPOP_ALGS)];
    const verified = await jwtVerify(r.proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms });
    header = verified.protectedHeader as { jwk?: JWK };
    claims = verified.payload;
  } catch (err) {
    const why = err instanceof errors.JOSEError ? err.message : 'the proof is not a valid JWS';
    throw invalidDpopProof(`invalid DPoP proof: ${why}`);
  }
  const { jti, htm, htu, iat, ath, nonce } = claims;
  if (typeof jti !== 'string' || !jti || jti.length > MAX_JTI_LENGTH)
    throw invalidDpopProof('the DPoP proof needs a jti (at most 256 characters)');
  if (htm !== r.method) throw invalidDpopProof(`the DPoP proof's htm is not ${r.method}`);
  const expected = htuForm(r.url);
  if (typeof htu !== 'string' || !expected || htuForm(htu) !== expected)
    throw invalidDpopProof(`the DPoP proof's htu is not ${expected}`);
  const now = Math.floor(Date.now() / 1000);
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw invalidDpopProof('the DPoP proof needs a numeric iat');
  if (iat < now - DPOP_PROOF_MAX_AGE_S) throw invalidDpopProof('the DPoP proof is too old (iat)');
  if (iat > now + DPOP_PROOF_FUTURE_SKEW_S) throw invalidDpopProof('the DPoP proof is issued in the future (iat)');
  if (r.accessToken !== undefined && ath !== accessTokenHash(r.accessToken))
    throw invalidDpopProof(
      ath === undefined ? 'the DPoP proof needs ath' : "the DPoP proof's ath is not the access token's hash",
    );
  if (r.requireNonce && !isValidDpopNonce(masterKey, nonce))
    throw useDpopNonce(
      nonce === undefined ? 'a DPoP nonce is required' : 'the DPoP nonce is invalid or expired; use the new one',
    );
  let jkt: string;
  try {
    jkt = await calculateJwkThumbprint(header.jwk as JWK, 'sha256');
  } catch {
    throw invalidDpopProof('the jwk header of the DPoP proof has no thumbprint');
  }
  const usableUntil = new Date((iat + DPOP_PROOF_MAX_AGE_S + DPOP_PROOF_FUTURE_SKEW_S + 1) * 1000);
  if (!(await claimJtiOnce(src, `${jkt}:${jti}`, usableUntil, dpopUsedProofs)))
    throw invalidDpopProof('the DPoP proof was already used (jti)');
  return { jkt };
}
