import type { Context } from 'hono';
import { type Deps, sourceOf } from '../deps';
import { currentDpopNonce } from '../domain/oidc/dpop/nonce';
import { verifyDpopProof } from '../domain/oidc/dpop/proof';
import { invalidDpopProof } from '../domain/oidc/oauth-errors';
import type { AuthenticatedClient } from './client-auth';
import { FAPI2_ALGS, isFapi2 } from '../domain/application/security-profile';
import { oidcEnv } from './env';

/** The response header that carries the server's DPoP nonce (RFC 9449 §8). */
export const DPOP_NONCE_HEADER = 'DPoP-Nonce';

/** The external URL of this request (the `htu` a proof must name): the issuer's origin and the path. */
export function requestUrl(deps: Deps, c: Context): string {
  return `${deps.config.externalUrl}${c.req.path}`;
}

/**
 * The token endpoint's DPoP step (RFC 9449 §5), after client authentication: with a `DPoP` header,
 * the proof is checked and the tokens will be bound to its key; without one, a client whose
 * application sets dpopBoundAccessTokens is refused (invalid_dpop_proof). Such clients must also
 * use our nonce (§8): every answer to them carries the current one in `DPoP-Nonce`, and a proof
 * without it fails with use_dpop_nonce. Other clients (and machine users) need no nonce.
 */
export async function tokenRequestDpop(
  c: Context,
  deps: Deps,
  client: AuthenticatedClient | undefined,
): Promise<{ jkt: string } | undefined> {
  const required = !!client?.client.oidc?.dpopBoundAccessTokens;
  const env = oidcEnv(deps);
  if (required) c.header(DPOP_NONCE_HEADER, currentDpopNonce(env.masterKey));
  const proof = c.req.header('dpop');
  if (proof === undefined) {
    if (required) throw invalidDpopProof('this client must send a DPoP proof (its tokens are DPoP-bound)');
    return undefined;
  }
  return verifyDpopProof(sourceOf(deps), env.masterKey, {
    proof,
    method: c.req.method,
    url: requestUrl(deps, c),
    requireNonce: required,
    algorithms: isFapi2(client?.client.oidc) ? FAPI2_ALGS : undefined,
  });
}
