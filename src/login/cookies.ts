import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { constantTimeEqual, randomToken, sha256Hex } from '../crypto/random';

/** The browser's user-agent cookie: it names the browser, whose sessions are rows in the database. */
const UA_COOKIE = 'pc_ua';
/** Double-submit CSRF cookie, compared with the hidden field of every form. */
const CSRF_COOKIE = 'pc_csrf';

/** The browser reached us over https (directly, or through a proxy that says so): cookies get `Secure`. */
export function secure(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}

export function userAgentHash(c: Context): string | undefined {
  const v = getCookie(c, UA_COOKIE);
  return v ? sha256Hex(v) : undefined;
}

/** A new cookie value after every login (no session fixation); returns the hash stored with the sessions. */
export function rotateUserAgent(c: Context): string {
  const next = newUserAgent();
  setUserAgent(c, next.value);
  return next.hash;
}

/** A new user-agent cookie value and its hash, to send with setUserAgent once the sign-in has committed. */
export function newUserAgent(): { value: string; hash: string } {
  const value = randomToken(32);
  return { value, hash: sha256Hex(value) };
}

export function setUserAgent(c: Context, value: string): void {
  setCookie(c, UA_COOKIE, value, {
    path: '/',
    httpOnly: true,
    secure: secure(c),
    sameSite: 'Lax',
    maxAge: 400 * 24 * 3600,
  });
}

/** Where a CSRF cookie is sent: the login pages, or the end-session endpoint's confirmation. */
const LOGIN_CSRF = { name: CSRF_COOKIE, path: '/ui/login' };
export const LOGOUT_CSRF = { name: 'pc_logout_csrf', path: '/oidc/v1/end_session' };

/** The CSRF token for the forms of this response (reuses the browser's cookie when it has one). */
export function csrfToken(c: Context, cookie = LOGIN_CSRF): string {
  let token = getCookie(c, cookie.name);
  if (!token || token.length < 32) {
    token = randomToken(32);
    setCookie(c, cookie.name, token, { path: cookie.path, httpOnly: true, secure: secure(c), sameSite: 'Lax' });
  }
  return token;
}

export function csrfValid(c: Context, submitted: string | undefined, cookie = LOGIN_CSRF): boolean {
  const value = getCookie(c, cookie.name);
  return !!value && !!submitted && constantTimeEqual(value, submitted);
}
