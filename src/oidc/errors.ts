import type { Context } from 'hono';
import { asDomainError, DomainError } from '../domain/errors';
import { oauthCodeOf } from '../domain/oidc/oauth-errors';
import { errorPage } from '../login/render';

type Log = { error: (o: object, m: string) => void };

const STATUS: Record<string, number> = {
  invalid_client: 401,
  invalid_token: 401,
  temporarily_unavailable: 503,
  server_error: 500,
};
/** Seconds a client is asked to wait when the database is down. */
const RETRY_AFTER_S = '5';

/**
 * The OAuth transport's one mapping from errors, rendered three ways: JSON for the back-channel
 * endpoints (renderOAuthError), a redirect for the authorization endpoint (authorize.ts `fail`, fed by
 * toOAuthError) and an HTML page for the browser endpoints and the hosted login (renderOAuthPage).
 * Handlers throw domain errors (the factories are in domain/oidc/oauth-errors.ts); they never format them.
 * Status: 401 for invalid_client (with `WWW-Authenticate` when Basic was tried), 503 for
 * temporarily_unavailable (the database is down), 500 for server_error, 400 for everything else
 * (RFC 6749 §5.2).
 */
export class OAuthError extends Error {
  readonly description: string;
  constructor(
    readonly code: string,
    description: string,
    readonly status = STATUS[code] ?? 400,
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
  return text
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/[^\x20-\x7e]/g, '?');
}

const KIND_CODES: Partial<Record<DomainError['kind'], string>> = {
  invalid_argument: 'invalid_request',
  not_found: 'invalid_request',
  failed_precondition: 'invalid_request',
  permission_denied: 'access_denied',
  unauthenticated: 'invalid_client',
  unavailable: 'temporarily_unavailable',
};

/** Domain errors become OAuth errors: `OAuth.<code>` keys carry their code, other kinds map by table. */
export function toOAuthError(err: unknown): OAuthError | undefined {
  if (err instanceof OAuthError) return err;
  err = asDomainError(err) ?? err;
  if (err instanceof DomainError) {
    const code = oauthCodeOf(err) ?? KIND_CODES[err.kind];
    if (code)
      return new OAuthError(
        code,
        err.message,
        undefined,
        code === 'temporarily_unavailable' ? { 'Retry-After': RETRY_AFTER_S } : {},
      );
  }
  return undefined;
}

/** toOAuthError, and anything unexpected logged and turned into server_error. */
function known(c: Context, err: unknown, log: Log | undefined, where: string): OAuthError {
  const e = toOAuthError(err);
  if (e) return e;
  log?.error({ err, path: c.req.path }, `unexpected error in ${where}`);
  return new OAuthError('server_error', 'internal error');
}

function setHeaders(c: Context, e: OAuthError): void {
  for (const [k, v] of Object.entries(e.headers)) c.header(k, v);
  // RFC 6749 §5.2: a client that tried Basic is answered with the scheme it used.
  if (e.code === 'invalid_client' && /^basic\s/i.test(c.req.header('authorization') ?? '')) {
    c.header('WWW-Authenticate', 'Basic realm="portcullis", charset="UTF-8"');
  }
  // RFC 6750 §3: a refused bearer token is answered with the Bearer scheme.
  if (e.code === 'invalid_token') c.header('WWW-Authenticate', 'Bearer error="invalid_token"');
}

/** Renders an OAuth JSON error; anything unexpected is logged and becomes server_error. */
export function renderOAuthError(c: Context, err: unknown, log?: Log) {
  const e = known(c, err, log, 'OAuth endpoint');
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  setHeaders(c, e);
  return c.json({ error: e.code, error_description: e.description }, e.status as 400);
}

/**
 * Renders an error as the HTML error page of the browser endpoints (authorize before its redirect URI
 * is known good, end_session) and of the hosted login, with the OAuth error's status.
 */
export function renderOAuthPage(c: Context, err: unknown, log?: Log) {
  const e = known(c, err, log, 'browser endpoint');
  setHeaders(c, e);
  return errorPage(c, e.description, { status: e.status });
}
