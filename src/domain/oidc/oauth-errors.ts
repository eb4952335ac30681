import { DomainError, type DomainErrorKind } from '../errors';
import { OAUTH_KEY_PREFIX } from './env';

/**
 * The one set of OAuth error factories. Rules of the protocol — in the domain and in the OIDC
 * transport alike — fail with the OAuth error code in the key (`OAuth.invalid_grant`), so that the
 * OAuth renderer (oidc/errors.ts) answers the right code and status and the Connect one a fitting code.
 */
function oauthError(code: string, kind: DomainErrorKind) {
  return (description: string) => new DomainError(kind, `${OAUTH_KEY_PREFIX}${code}`, description);
}

export const invalidGrant = oauthError('invalid_grant', 'failed_precondition');
export const invalidScope = oauthError('invalid_scope', 'invalid_argument');
export const invalidRequest = oauthError('invalid_request', 'invalid_argument');
/** 401; the renderer adds `WWW-Authenticate: Basic` when the request tried Basic (RFC 6749 §5.2). */
export const invalidClient = oauthError('invalid_client', 'unauthenticated');
export const unauthorizedClient = oauthError('unauthorized_client', 'permission_denied');
export const accessDenied = oauthError('access_denied', 'permission_denied');
export const invalidTarget = oauthError('invalid_target', 'invalid_argument');
export const unsupportedGrantType = oauthError('unsupported_grant_type', 'invalid_argument');
export const unsupportedResponseType = oauthError('unsupported_response_type', 'invalid_argument');
/** prompt=none (OIDC Core §3.1.2.6): the user would have to sign in, or to choose, and may not be asked. */
export const loginRequired = oauthError('login_required', 'failed_precondition');
export const interactionRequired = oauthError('interaction_required', 'failed_precondition');
/** RFC 7591 §3.2.2: a redirect URI of a client registration is refused. */
export const invalidRedirectUri = oauthError('invalid_redirect_uri', 'invalid_argument');
/** RFC 7591 §3.2.2: another client metadata value is refused. */
export const invalidClientMetadata = oauthError('invalid_client_metadata', 'invalid_argument');
/** RFC 6750 §3.1: a bearer token (the registration or initial access token) is missing or wrong; 401. */
export const invalidToken = oauthError('invalid_token', 'unauthenticated');
/** RFC 9101 §6.3: a request object that is malformed, unsigned or not verifiable with the client's keys. */
export const invalidRequestObject = oauthError('invalid_request_object', 'invalid_argument');
/** A pushed request_uri that is unknown, used, expired or another client's (RFC 9126 §4, RFC 9101 §6.3). */
export const invalidRequestUri = oauthError('invalid_request_uri', 'invalid_argument');
/** A request_uri we would have to fetch: only the URNs of our own PAR endpoint are accepted. */
export const requestUriNotSupported = oauthError('request_uri_not_supported', 'invalid_argument');

/** The OAuth error code an error was made with by one of these factories, else undefined. */
export function oauthCodeOf(err: unknown): string | undefined {
  return err instanceof DomainError && err.key.startsWith(OAUTH_KEY_PREFIX)
    ? err.key.slice(OAUTH_KEY_PREFIX.length)
    : undefined;
}

/** RFC 8628 §3.5: the device polls before the user has answered. */
export const authorizationPending = oauthError('authorization_pending', 'failed_precondition');
/** RFC 8628 §3.5: the device polls faster than its interval (which then grows by 5 seconds). */
export const slowDown = oauthError('slow_down', 'failed_precondition');
/** RFC 8628 §3.5: the device code has expired; the device must start again. */
export const expiredToken = oauthError('expired_token', 'failed_precondition');

/** RFC 9449 §5 / §7.1: the DPoP proof is missing where required, malformed, or does not fit the request. */
export const invalidDpopProof = oauthError('invalid_dpop_proof', 'invalid_argument');
/** RFC 9449 §8: the server wants a proof with its nonce (sent in the `DPoP-Nonce` header). */
export const useDpopNonce = oauthError('use_dpop_nonce', 'invalid_argument');
