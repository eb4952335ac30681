import type { Context } from 'hono';
import { type Deps, sourceOf } from '../../deps';
import { findClient } from '../../domain/oidc/clients';
import { findPendingByUserCode } from '../../domain/oidc/device/authorizations';
import { startDeviceLogin } from '../../domain/oidc/device/login';
import { normalizeUserCode } from '../../domain/oidc/device/user-code';
import { oidcCtx } from '../../oidc/env';
import { csrfToken, csrfValid } from '../cookies';
import { readForm } from '../form';
import { DeviceCodePage } from '../pages/device';
import { localeOf, renderPage } from '../render';
import { nextStep } from '../sequence';
import { DEVICE_PAGE } from './paths';

/**
 * GET /ui/login/device: the form for the user code. A `user_code` in the address (the device's
 * verification_uri_complete) only fills the field: the user still confirms it, so a link sent by
 * someone else does not start a sign-in by itself (RFC 8628 §5.4), and guessing through GET tries nothing.
 */
export function deviceCodePage(c: Context) {
  const { locale, t } = localeOf(c);
  const error = c.req.query('error');
  const text =
    error === 'code' ? t.deviceWrongCode : error === 'csrf' ? t.csrf : error === 'gone' ? t.deviceNotHere : undefined;
  return renderPage(
    c,
    <DeviceCodePage locale={locale} t={t} csrf={csrfToken(c)} userCode={c.req.query('user_code')} error={text} />,
    text ? 400 : 200,
  );
}

/**
 * POST /ui/login/device (counted by the hosted login's rate limit like every login form): a user code
 * of a pending device authorization starts a sign-in for its client and scopes through the normal
 * hosted login; anything else goes back to the form with the same error, whatever was wrong.
 */
export function deviceCodePost(deps: Deps) {
  return async (c: Context) => {
    const form = await readForm(c);
    if (!csrfValid(c, form.csrf)) return c.redirect(`${DEVICE_PAGE}?error=csrf`, 303);
    const code = normalizeUserCode(form.user_code);
    const row = code ? await findPendingByUserCode(deps.database.db, code) : undefined;
    const client = row ? await findClient(sourceOf(deps), row.clientId) : undefined;
    if (!row || !client?.active) return c.redirect(`${DEVICE_PAGE}?error=code`, 303);
    const request = await startDeviceLogin(oidcCtx(deps, 'login'), row, client, {
      verificationUri: `${deps.config.externalUrl}${DEVICE_PAGE}`,
      uiLocales: [],
    });
    return c.redirect(await nextStep(c, deps, request), 303);
  };
}
