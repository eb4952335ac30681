import { isLoopback } from './compliance';
import type { OidcAppConfig } from './model';
import { parseUrl } from '../validate/url';

const MAX_URI_LENGTH = 2048;

/**
 * Why a back- or front-channel logout URI cannot be used, or undefined when it can. The rules are
 * the redirect URIs' for web clients: an absolute https URI without fragment, http only on a
 * loopback host or in development mode. Checked when saved and again at use, so a configuration
 * that left development mode never sends a logout token or an iframe over plain http.
 */
export function logoutUriProblem(c: Pick<OidcAppConfig, 'developmentMode'>, uri: string): string | undefined {
  if (uri.length > MAX_URI_LENGTH) return `must be at most ${MAX_URI_LENGTH} characters`;
  const url = parseUrl(uri);
  if (!url || /\s/.test(uri) || !url.hostname || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    return 'must be an absolute http(s) URI';
  if (url.hash || uri.includes('#')) return 'must not have a fragment';
  if (url.protocol === 'http:' && !isLoopback(url) && !c.developmentMode)
    return 'must use https (http only on a loopback host or with development_mode)';
  return undefined;
}

/** The URI when it is set and may be used now. */
export function usableLogoutUri(c: OidcAppConfig, uri: string | undefined): string | undefined {
  return uri && logoutUriProblem(c, uri) === undefined ? uri : undefined;
}
