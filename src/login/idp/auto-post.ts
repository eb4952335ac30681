import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { securityHeaders } from '../render';

const SUBMIT = 'document.forms[0].submit()';
const SUBMIT_HASH = createHash('sha256').update(SUBMIT).digest('base64');

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/**
 * A page whose form the browser posts at once (a button does it without JavaScript): a SAML
 * AuthnRequest by HTTP-POST, or a callback re-posted from our own origin. The only script allowed is
 * the one submitting the form.
 */
export function autoPost(c: Context, action: string, fields: Record<string, string>, button = 'Continue') {
  securityHeaders(c);
  c.header(
    'Content-Security-Policy',
    `default-src 'none'; script-src 'sha256-${SUBMIT_HASH}'; frame-ancestors 'none'; base-uri 'none'`,
  );
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  return c.html(
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${escapeHtml(button)}</title></head><body>` +
      `<form method="post" action="${escapeHtml(action)}">${inputs}` +
      `<noscript><button>${escapeHtml(button)}</button></noscript></form>` +
      `<script>${SUBMIT}</script></body></html>`,
  );
}
