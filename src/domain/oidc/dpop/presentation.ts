import { invalidDpopProof, invalidToken } from '../oauth-errors';
import { verifyDpopProof } from './proof';
import type { Source } from '../../context';

/** How an access token was presented: `Authorization: Bearer …` (RFC 6750) or `DPoP …` (RFC 9449 §7.1). */
export type TokenScheme = 'Bearer' | 'DPoP';

export interface Presentation {
  scheme: TokenScheme;
  token: string;
  /** the DPoP header of the request, if any */
  proof: string | undefined;
  method: string;
  /** the external URL of the request (htu) */
  url: string;
}

/**
 * The resource-server rule of RFC 9449 §7, one place for userinfo and the API: a DPoP-bound token
 * (`jkt`) is accepted only with the DPoP scheme and a valid proof for this request whose `ath` is the
 * token's hash and whose key is the bound key; as Bearer it is refused, so a stolen bound token is
 * useless without the private key. An unbound token is accepted only as Bearer.
 */
export async function checkSenderConstraint(
  src: Source,
  masterKey: Buffer,
  boundJkt: string | null | undefined,
  p: Presentation,
): Promise<void> {
  if (!boundJkt) {
    if (p.scheme === 'DPoP') throw invalidToken('the access token is not DPoP-bound: present it as Bearer');
    return;
  }
  if (p.scheme !== 'DPoP')
    throw invalidToken('the access token is DPoP-bound: present it with the DPoP scheme and a proof');
  if (!p.proof) throw invalidDpopProof('a DPoP proof is required with the DPoP scheme');
  const { jkt } = await verifyDpopProof(src, masterKey, {
    proof: p.proof,
    method: p.method,
    url: p.url,
    accessToken: p.token,
  });
  if (jkt !== boundJkt) throw invalidToken('the access token is bound to another DPoP key');
}
