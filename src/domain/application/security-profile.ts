import type { OidcAppConfig } from './model';
import { parseUrl } from '../validate/url';
import { unauthorizedClient } from '../oidc/oauth-errors';

/**
 * FAPI 2.0 Security Profile (OpenID FAPI 2.0, §5.3) as rules over one client's configuration. The same
 * function judges a configuration when it is saved and again at every authorization, PAR and token
 * request, so a client whose stored configuration no longer meets the profile (an import, an older row)
 * is refused instead of quietly served with weaker rules.
 */

/** Signing algorithms FAPI 2.0 allows (§5.4): no RSA PKCS#1 v1.5, no HMAC. */
export const FAPI2_ALGS = ['PS256', 'ES256', 'EdDSA'] as const;

/** The grants of the profile: the code flow and refreshing its tokens. */
const FAPI2_GRANTS = ['AUTHORIZATION_CODE', 'REFRESH_TOKEN'];

export function isFapi2(c: Pick<OidcAppConfig, 'securityProfile'> | null | undefined): boolean {
  return c?.securityProfile === 'FAPI_2_0';
}

/** What a FAPI 2.0 client's configuration lacks, one sentence each (empty: it meets the profile). */
export function fapi2ConfigProblems(c: OidcAppConfig): string[] {
  if (!isFapi2(c)) return [];
  const problems: string[] = [];
  if (c.applicationType !== 'WEB') problems.push('application_type WEB (a confidential client)');
  if (c.authMethodType !== 'PRIVATE_KEY_JWT') problems.push('auth_method_type PRIVATE_KEY_JWT');
  if (!c.requirePushedAuthorizationRequests) problems.push('require_pushed_authorization_requests true');
  if (!c.dpopBoundAccessTokens) problems.push('dpop_bound_access_tokens true (sender-constrained tokens)');
  if (c.responseTypes.length !== 1 || c.responseTypes[0] !== 'CODE') problems.push('response_types CODE only');
  if (c.grantTypes.some((g) => !FAPI2_GRANTS.includes(g)))
    problems.push('grant_types AUTHORIZATION_CODE and REFRESH_TOKEN only (no implicit, device or token exchange)');
  if (c.developmentMode) problems.push('development_mode false');
  if (c.redirectUris.some((u) => parseUrl(u)?.protocol !== 'https:')) problems.push('https redirect URIs only');
  return problems;
}

/**
 * At request time: a client under a profile whose stored configuration does not meet it is refused
 * (unauthorized_client) until an administrator fixes the configuration.
 */
export function assertSecurityProfileMet(c: OidcAppConfig | undefined): void {
  if (!c || !isFapi2(c)) return;
  const unmet = fapi2ConfigProblems(c);
  if (unmet.length > 0)
    throw unauthorizedClient(`the client's configuration does not meet FAPI 2.0: it needs ${unmet.join('; ')}`);
}
