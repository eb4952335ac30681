import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import { randomToken } from '../crypto/random';

export type ResponseMode = 'query' | 'fragment' | 'form_post';

/**
 * Sends an authorization response (success or error) to the client's redirect URI in the response
 * mode; `iss` (RFC 9207) and `state` are on every response. query/fragment redirect with 303;
 * form_post answers a page that POSTs the parameters (nothing in the URL).
 */
export function sendAuthorizationResponse(
  c: Context,
  issuer: string,
  r: { redirectUri: string; mode: ResponseMode; state: string | null | undefined; params: Record<string, string> },
) {
  const params: Record<string, string> = { ...r.params };
  if (r.state !== null && r.state !== undefined) params.state = r.state;
  params.iss = issuer;
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  if (r.mode === 'form_post') {
    const nonce = randomToken(16);
    c.header(
      'Content-Security-Policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; form-action ${new URL(r.redirectUri).origin}; ` +
        "frame-ancestors 'none'",
    );
    c.header('X-Frame-Options', 'DENY');
    const inputs = Object.entries(params).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
    const noscript = html`<noscript><button type="submit">Continue</button></noscript>`;
    const form = html`<form method="post" action="${r.redirectUri}">${inputs}${noscript}</form>`;
    const submit = html`<script nonce="${nonce}">${raw('document.forms[0].submit()')}</script>`;
    const head = html`<head><meta charset="utf-8"><title>Submitting…</title></head>`;
    return c.html(html`<!DOCTYPE html><html lang="en">${head}<body>${form}${submit}</body></html>`);
  }
  const url = new URL(r.redirectUri);
  if (r.mode === 'fragment') {
    url.hash = new URLSearchParams(params).toString();
  } else {
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  }
  return c.redirect(url.toString(), 303);
}

/** Default mode from the response type (§2.3); a valid requested mode wins, except query for tokens. */
export function responseModeFor(responseType: string, requested: string | undefined): ResponseMode {
  const def: ResponseMode = responseType === 'code' ? 'query' : 'fragment';
  if (requested === 'form_post' || requested === 'fragment') return requested;
  if (requested === 'query' && responseType === 'code') return 'query';
  return def;
}
