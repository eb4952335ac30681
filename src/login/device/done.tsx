import type { Context } from 'hono';
import { MessagePage } from '../pages/message';
import { localeOf, renderPage } from '../render';

/** GET /ui/login/device/done: what happened, and that the rest happens on the device. */
export function deviceDonePage(c: Context) {
  const { locale, t } = localeOf(c);
  const allowed = c.req.query('result') === 'allowed';
  return renderPage(
    c,
    <MessagePage
      locale={locale}
      t={t}
      title={allowed ? t.deviceAllowedTitle : t.deviceDeniedTitle}
      text={allowed ? t.deviceAllowedText : t.deviceDeniedText}
    />,
  );
}
