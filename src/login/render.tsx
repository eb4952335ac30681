import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import { type Locale, messages, pickLocale, type Messages } from './i18n';
import { MessagePage } from './pages/message';

/**
 * Headers of every login page: no framing, no referrer leaks, no caching, same-origin resources.
 * No form-action: browsers apply it to the redirects after a POST, and the last one goes to the client.
 */
export function securityHeaders(c: Context): void {
  c.header(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Cache-Control', 'no-store');
}

export function localeOf(c: Context, uiLocales?: string[]): { locale: Locale; t: Messages } {
  const locale = pickLocale(uiLocales, c.req.header('accept-language'));
  return { locale, t: messages(locale) };
}

export function renderPage(c: Context, page: Child, status = 200) {
  securityHeaders(c);
  return c.html(`<!DOCTYPE html>${page}`, status as 200);
}

/** The error page (HTTP 400 unless told): shown instead of redirecting when the redirect is unusable. */
export function errorPage(
  c: Context,
  detail: string,
  opts: { status?: number; uiLocales?: string[]; text?: string } = {},
) {
  const { locale, t } = localeOf(c, opts.uiLocales);
  return renderPage(
    c,
    <MessagePage
      locale={locale}
      t={t}
      title={t.errorTitle}
      text={opts.text ?? detail}
      detail={opts.text ? detail : undefined}
    />,
    opts.status ?? 400,
  );
}
