import type { Context } from 'hono';
import { asDomainError, DomainError } from '../domain/errors';
import { OAUTH_KEY_PREFIX } from '../domain/oidc/env';

/**
 * One class per OAuth error code, one renderer. Handlers throw; they never format errors.
 * Status: 401 for invalid_client (with `WWW-Authenticate` when Basic was tried), 500 for
 * server_error, 400 for everything else (RFC 6749 §5.2).
 */
export class OAuthError extends Error {
  readonly description: string;
  constructor(
    readonly code: string,
    description: string,
    readonly status = code === 'invalid_client' ? 401 : code === 'server_error' ? 500 : 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.description = safeDescription(description);
  }
}

/**
 * RFC 6749 §5.2: error_description holds only %x20-21 / %x23-5B / %x5D-7E. Descriptions often quote
 * what the client sent, so control characters (CR, LF, TAB: header and log injection), quotes,
 * backslashes and non-ASCII are replaced here, once for every error the OAuth endpoints render.
 */
export function safeDescription(text: string): string {
  return text.replace(/"/g, "'").replace(/\\/g, '/').replace(/[^\x20-\x7e]/g, '?');
}

export const invalidRequest = (d: string) => new OAuthError('invalid_request', d);
export const invalidClient = (d: string, basicUsed = false) =>
  new OAuthError('invalid_client', d, 401, basicUsed ? { 'WWW-Authenticate': 'Basic realm="portcullis", charset="UTF-8"' } : {});
export const invalidGrant = (d: string) => new OAuthError('invalid_grant', d);
export const invalidScope = (d: string) => new OAuthError('invalid_scope', d);
export const unauthorizedClient = (d: string) => new OAuthError('unauthorized_client', d);
export const unsupportedGrantType = (d: string) => new OAuthError('unsupported_grant_type', d);
export const unsupportedTokenType = (d: string) => new OAuthError('unsupported_token_type', d);

const KIND_CODES: Partial<Record<DomainError['kind'], string>> = {
  invalid_argument: 'invalid_request',
  not_found: 'invalid_request',
  failed_precondition: 'invalid_request',
  permission_denied: 'access_denied',
  unauthenticated: 'invalid_client',
};

/** Domain errors become OAuth errors: `OAuth.<code>` keys carry their code, other kinds map by table. */
export function toOAuthError(err: unknown): OAuthError | undefined {
  if (err instanceof OAuthError) return err;
  err = asDomainError(err) ?? err;
  if (err instanceof DomainError) {
    if (err.key.startsWith(OAUTH_KEY_PREFIX)) return new OAuthError(err.key.slice(OAUTH_KEY_PREFIX.length), err.message);
    const code = KIND_CODES[err.kind];
    if (code) return new OAuthError(code, err.message);
  }
  return undefined;
}

/** Renders an OAuth JSON error; anything unexpected is logged and becomes server_error. */
export function renderOAuthError(c: Context, err: unknown, log?: { error: (o: object, m: string) => void }) {
  let e = toOAuthError(err);
  if (!e) {
    log?.error({ err, path: c.req.path }, 'unexpected error in OAuth endpoint');
    e = new OAuthError('server_error', 'internal error');
  }
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  for (const [k, v] of Object.entries(e.headers)) c.header(k, v);
  return c.json({ error: e.code, error_description: e.description }, e.status as 400);
}
