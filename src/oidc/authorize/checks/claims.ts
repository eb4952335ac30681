import { essentialAcrValues, parseClaimsRequest, requestedSubject } from '../../../domain/oidc/claims-request';
import { accessDenied, invalidRequest } from '../../../domain/oidc/oauth-errors';
import { ACR_VALUES } from '../../../domain/policy/acr';
import type { AuthorizeCheck, Checked } from './types';

/**
 * The `claims` parameter (OIDC Core §5.5), parsed and limited (domain/oidc/claims-request.ts). Two of
 * its requests change who may answer and how:
 * - an essential `acr` with values is the binding form of acr_values and takes their place, so the one
 *   rule of acrRequiresMfa applies (mfa only: a second factor is demanded). When we reach none of the
 *   values, no sign-in can meet it: refused as access_denied (§5.5.1.1, a failed authentication).
 * - a `sub` value (§5.5.1) names the only user who may answer, like an id_token_hint; both naming
 *   different users is a malformed request. The answer checks it again (domain/oidc/authorize.ts).
 */
export const claims: AuthorizeCheck = ({ params }, found) => {
  const raw = params.get('claims');
  if (raw === undefined) return { claims: null };
  const parsed = parseClaimsRequest(raw);
  const out: Partial<Checked> = { claims: parsed };
  const acr = essentialAcrValues(parsed);
  if (acr) {
    const ours = acr.filter((v) => (ACR_VALUES as readonly string[]).includes(v));
    if (!ours.length)
      throw accessDenied(`none of the essential acr values can be met; supported: ${ACR_VALUES.join(' ')}`);
    out.acrValues = ours;
  }
  const sub = requestedSubject(parsed);
  if (sub !== undefined) {
    if (found.hintUserId && found.hintUserId !== sub) {
      throw invalidRequest('the sub value of claims and the id_token_hint name different users');
    }
    out.hintUserId = sub;
  }
  return out;
};
