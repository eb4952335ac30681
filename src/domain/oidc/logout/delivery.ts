import { loadMasterKey } from '../../../crypto/keys/master-key';
import { logoutDeliveries } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { guardedFetch, OutboundRefused } from '../../outbound/guarded-fetch';
import { isDevelopmentIssuer } from '../../outbound/development';
import { defineOutbox } from '../../outbox/outbox';
import { currentSigningKey } from '../web-keys';
import { signLogoutToken } from './token';

export const MAX_LOGOUT_ATTEMPTS = 5;
const TIMEOUT_MS = 5000;
/** The answer's body is not read; a relying party has no reason to send more than a few bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;

type Delivery = typeof logoutDeliveries.$inferSelect;

/**
 * POSTs the logout token as a form (Back-Channel Logout 1.0 §2.5) through the guarded fetcher: the URI
 * is the client's choice, so it is held to the outbound rule (https, no address inside the server's
 * network, no redirect followed, so the token goes only to the registered URI). Anything but a 2xx
 * within the timeout is a failure.
 */
async function post(uri: string, token: string, development: boolean): Promise<void> {
  let res: Response;
  try {
    res = await guardedFetch(uri, {
      purpose: 'the back-channel logout URI',
      development,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: token }).toString(),
      maxBytes: MAX_ANSWER_BYTES,
      timeoutMs: TIMEOUT_MS,
    });
  } catch (err) {
    if (err instanceof OutboundRefused) throw err;
    const e = err as Error & { cause?: { code?: string } };
    throw new Error(e.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS} ms` : (e.cause?.code ?? e.message));
  }
  if (res.status < 200 || res.status > 299) throw new Error(`HTTP ${res.status}`);
}

const eventOf = (d: Delivery) => ({
  aggregateType: 'session' as const,
  aggregateId: d.sessionId,
  resourceOwner: d.orgId,
});
const idsOf = (d: Delivery) => ({ clientId: d.clientId, deliveryId: d.id, attempts: d.attempts });

/**
 * Logout tokens to the relying parties' back-channel URIs, all of a batch at once (each may wait for its
 * timeout): a claimed row is hidden for a minute, a failed one retried after 5, 10, 20 and 40 s, and
 * FAILED after the 5th attempt. The token is signed at each attempt with the key active then.
 */
export const logoutOutbox = defineOutbox({
  name: 'backchannel-logout-delivery',
  table: logoutDeliveries,
  pollMs: 5000,
  batch: 20,
  leaseSeconds: 60,
  maxAttempts: MAX_LOGOUT_ATTEMPTS,
  retryDelay: (attempts) => 5 * 2 ** (attempts - 1),
  // what happened to each notice stays in the events (session.logout_token.*); the rows go after a week
  keepFinishedSeconds: 7 * 86_400,
  parallel: true,
  async sender(deps, ctx) {
    const key = await currentSigningKey(ctx, loadMasterKey(deps.config));
    const development = isDevelopmentIssuer(deps.config.externalUrl);
    return async (d) => {
      const claims = { clientId: d.clientId, userId: d.userId, sessionId: d.sessionId, jti: d.id };
      const token = await signLogoutToken(key, { issuer: deps.config.externalUrl, ...claims });
      await post(d.uri, token, development);
    };
  },
  events: {
    service: 'oidc/backchannel-logout',
    sent: (d) => ({ ...eventOf(d), type: 'session.logout_token.sent', payload: idsOf(d) }),
    failed: (d, error) => ({ ...eventOf(d), type: 'session.logout_token.failed', payload: { ...idsOf(d), error } }),
  },
});

/** Delivers the logout tokens due now (after a session ended) instead of waiting for the job's next tick. */
export const deliverLogoutsNow = (deps: Deps): Promise<void> => logoutOutbox.deliverNow(deps);

/** Retries what is due (failed attempts after their back-off, rows whose replica died mid-delivery). */
export const logoutDeliveryJob = logoutOutbox.job;
