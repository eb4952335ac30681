import * as client from 'openid-client';
import { DomainError } from '../../errors';

export const INVALID_RESPONSE = 'Errors.IdP.OAuth.InvalidResponse';
export const UNAVAILABLE = 'Errors.IdP.OAuth.Unavailable';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH']);

/** What each failed ID token claim check means, in words an administrator can act on. */
const CLAIM_FAILURES: Record<string, string> = {
  nonce: "the upstream ID token's nonce does not match",
  aud: 'the upstream ID token was issued for another client (aud)',
  azp: "the upstream ID token's authorized party (azp) is another client",
  iss: "the upstream ID token's issuer does not match the upstream",
  exp: 'the upstream ID token has expired',
  iat: "the upstream ID token's issue time (iat) is not acceptable",
  nbf: 'the upstream ID token is not valid yet (nbf)',
  auth_time: "the upstream ID token's auth_time is not acceptable",
  sub: 'the upstream userinfo is about another user than the ID token (sub)',
};

const invalid = (message: string) => new DomainError('unauthenticated', INVALID_RESPONSE, message);
const unavailable = (message: string) => new DomainError('unavailable', UNAVAILABLE, message);

/**
 * Turns whatever openid-client, oauth4webapi or fetch threw during `step` (e.g. "the token exchange")
 * into a DomainError: an upstream that is down or slow is `unavailable`, anything it answered that
 * fails a check is `unauthenticated` naming the check.
 */
export function upstreamFailure(err: unknown, step: string): DomainError {
  const chain = causes(err);
  const domain = chain.find((e): e is DomainError => e instanceof DomainError);
  if (domain) return domain;
  if (chain.some((e) => e instanceof DOMException && (e.name === 'TimeoutError' || e.name === 'AbortError'))) {
    return unavailable(`the upstream did not answer in time during ${step}`);
  }
  for (const e of chain) {
    const code = (e as { code?: unknown }).code;
    if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT') {
      return unavailable(`the upstream did not answer in time during ${step}`);
    }
    if ((typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('UND_ERR'))) || isFetchFailed(e)) {
      return unavailable(`the upstream could not be reached during ${step}`);
    }
  }
  const status = chain.map(httpStatus).find((s) => s !== undefined);
  if (status !== undefined && status >= 500) return unavailable(`the upstream answered HTTP ${status} during ${step}`);
  if (err instanceof client.ResponseBodyError) {
    const detail = err.error_description ? `: ${err.error_description}` : '';
    return invalid(`the upstream refused ${step} with ${err.error}${detail}`);
  }
  if (err instanceof client.WWWAuthenticateChallengeError) {
    const challenge = err.cause.find((c) => c.parameters.error) ?? err.cause[0];
    const detail = challenge?.parameters.error_description ? `: ${challenge.parameters.error_description}` : '';
    return invalid(`the upstream refused ${step} with ${challenge?.parameters.error ?? `HTTP ${err.status}`}${detail}`);
  }
  for (const e of chain) {
    const cause = (e as { cause?: { claim?: unknown } }).cause;
    if (e instanceof Error && typeof cause?.claim === 'string' && CLAIM_FAILURES[cause.claim]) {
      return invalid(CLAIM_FAILURES[cause.claim]);
    }
    if (e instanceof Error && /signature verification failed/.test(e.message)) {
      return invalid("the upstream ID token's signature does not verify with the upstream's keys");
    }
    if (e instanceof Error && /no applicable keys found/.test(e.message)) {
      return invalid("the upstream ID token is signed with a key the upstream's JWKS does not hold");
    }
  }
  const innermost = chain.filter((e): e is Error => e instanceof Error).pop();
  return invalid(`the upstream's answer to ${step} is invalid: ${innermost?.message ?? String(err)}`);
}

function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 6; depth++) {
    out.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

function isFetchFailed(e: unknown): boolean {
  return e instanceof TypeError && e.message === 'fetch failed';
}

function httpStatus(e: unknown): number | undefined {
  if (e instanceof Response) return e.status;
  if (e instanceof client.ResponseBodyError) return e.status;
  return undefined;
}
