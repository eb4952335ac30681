import { parseBasic } from './client-auth';
import type { Params } from './params';

/**
 * The client id a token request names, before anything is verified: the Basic user, the body's
 * client_id, or the issuer (else subject) of the client assertion or of a JWT profile grant's
 * assertion. Rate limits count under it, so that guesses at one client's credentials or codes are
 * limited however many addresses they come from. Undefined when the request names none.
 */
export function presentedClientId(authorization: string | undefined, params: Params): string | undefined {
  const basic = parseBasic(authorization);
  const id =
    (basic && basic !== 'malformed' && basic.id) ||
    params.get('client_id') ||
    unverifiedIssuer(params.get('client_assertion')) ||
    unverifiedIssuer(params.get('assertion'));
  // Client ids are short; a longer one is junk and need not cost the counter more memory.
  return id ? id.slice(0, MAX_ID) : undefined;
}

const MAX_ID = 256;

function unverifiedIssuer(jwt: string | undefined): string | undefined {
  if (!jwt) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    const id = payload?.iss ?? payload?.sub;
    return typeof id === 'string' && id ? id : undefined;
  } catch {
    return undefined;
  }
}
