import type { Context } from 'hono';
import { completeAuthRequest } from '../../domain/oidc/auth-requests';
import { findClient } from '../../domain/oidc/clients';
import { type DeviceAuthorization, findPendingByAuthRequest } from '../../domain/oidc/device/authorizations';
import { approveDeviceAuthorization, denyDeviceAuthorization } from '../../domain/oidc/device/decide';
import { DEVICE_RESPONSE_TYPE } from '../../domain/oidc/device/login';
import { asDomainError } from '../../domain/errors';
import { getSession, type Session } from '../../domain/session/sessions';
import { findUserById, loginNameOf } from '../../domain/session/users';
import { userAgentHash } from '../cookies';
import { DeviceConsentPage } from '../pages/device';
import { errorPage } from '../render';
import type { LoginStep, Turn } from '../steps/types';
import { DEVICE_CONSENT_STEP, DEVICE_DONE_PAGE, DEVICE_PAGE } from './paths';
import { sourceOf } from '../../deps';

/**
 * What the consent needs, or undefined: the auth request was made for a device authorization that is
 * still pending and names it as its newest request, and the session that signed in for it is one of
 * this browser's (the browser that signed in is the one that decides).
 */
async function consentOf(turn: Turn): Promise<{ row: DeviceAuthorization; session: Session } | undefined> {
  const { r, deps } = turn;
  if (r.responseType !== DEVICE_RESPONSE_TYPE || !r.sessionId) return undefined;
  const db = deps.database.db;
  const [row, session] = await Promise.all([findPendingByAuthRequest(db, r.id), getSession(db, r.sessionId)]);
  const ua = userAgentHash(turn.c);
  if (!row || !session?.userId || !ua || session.userAgentHash !== ua) return undefined;
  return { row, session };
}

const notHere = (c: Context) => c.redirect(`${DEVICE_PAGE}?error=gone`, 303);

/**
 * The last page of a device sign-in: "Allow <app> on your device?". Not in LOGIN_STEPS (no request
 * opens with it and no user has it pending): the auth request's callback leads here once the login
 * steps are done. Allow approves the device authorization with the signed-in session, Deny refuses it;
 * either way the auth request is answered.
 */
export const deviceConsent: LoginStep = {
  path: DEVICE_CONSENT_STEP,
  async page(turn) {
    const found = await consentOf(turn);
    if (!found) return notHere(turn.c);
    const [client, user] = await Promise.all([
      findClient(sourceOf(turn.deps), found.row.clientId),
      findUserById(turn.deps.database.db, found.session.userId!),
    ]);
    return turn.render((base) => (
      <DeviceConsentPage
        {...base}
        appName={client?.name ?? found.row.clientId}
        user={user ? loginNameOf(user) : ''}
        scopes={found.row.scopes}
      />
    ));
  },
  async post(turn) {
    const found = await consentOf(turn);
    if (!found) return notHere(turn.c);
    const ctx = turn.ctx(found.session.userId!);
    const allow = turn.form.decision === 'allow';
    try {
      if (allow) await approveDeviceAuthorization(ctx, found.row, found.session);
      else await denyDeviceAuthorization(ctx, found.row);
    } catch (err) {
      const known = asDomainError(err);
      if (!known || known.kind === 'unavailable' || known.kind === 'internal') throw err;
      return errorPage(turn.c, known.message, { uiLocales: turn.r.uiLocales });
    }
    await completeAuthRequest(ctx, turn.r.id);
    return turn.see(`${DEVICE_DONE_PAGE}?result=${allow ? 'allowed' : 'denied'}`);
  },
};
