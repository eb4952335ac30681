import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { randomToken } from '../../crypto/random';
import { secure } from '../cookies';

/**
 * The browser-binding cookie of sign-ins at external identity providers: the intent stores its hash,
 * and the callback and the login's finishing page accept the intent only from the browser holding it.
 * A link to somebody else's callback (login CSRF) therefore finds no match.
 */
const BINDING_COOKIE = 'pc_idp';

/** This browser's binding secret, set now if it has none. */
export function bindingSecret(c: Context): string {
  let value = getCookie(c, BINDING_COOKIE);
  if (!value || value.length < 32) {
    value = randomToken(32);
    // Lax: sent on the upstream's top-level redirect back to us; a cross-site POST (SAML, Apple's
    // form_post) carries none, so those callbacks re-post to themselves first (callback-routes.tsx).
    setCookie(c, BINDING_COOKIE, value, {
      path: '/',
      httpOnly: true,
      secure: secure(c),
      sameSite: 'Lax',
      maxAge: 3600,
    });
  }
  return value;
}

/** The binding secret the browser sent, if any. */
export const sentBindingSecret = (c: Context): string | undefined => getCookie(c, BINDING_COOKIE);
