import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import { systemPrincipal } from '../../../authz/principal';
import { loadMasterKey } from '../../../crypto/keys/master-key';
import { logoutDeliveries } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import type { Job } from '../../../jobs';
import type { Ctx } from '../../context';
import { execute } from '../../execute';
import { guardedFetch, OutboundRefused } from '../../outbound/guarded-fetch';
import { isDevelopmentIssuer } from '../../outbound/development';
import { currentSigningKey } from '../web-keys';
import { signLogoutToken } from './token';

/** How long a claimed row is hidden from other replicas while one of them delivers it. */
const LEASE_SECONDS = 60;
const BATCH = 20;
export const MAX_LOGOUT_ATTEMPTS = 5;
const TIMEOUT_MS = 5000;
/** The answer's body is not read; a relying party has no reason to send more than a few bytes. */
const MAX_ANSWER_BYTES = 64 * 1024;
const SERVICE = 'oidc/backchannel-logout';

type Delivery = typeof logoutDeliveries.$inferSelect;

/** Seconds until the next attempt after `attempts` failed ones: 5, 10, 20, 40. */
export function logoutRetryDelay(attempts: number): number {
  return 5 * 2 ** (attempts - 1);
}

/**
 * Claims due PENDING rows with `FOR UPDATE SKIP LOCKED`, counting the attempt and pushing the next
 * one past a lease in the same statement: replicas claim disjoint rows, and a replica that dies
 * mid-delivery leaves its rows to be retried after the lease.
 */
async function claimDue(ctx: Ctx): Promise<Delivery[]> {
  const due = ctx.db
    .select({ id: logoutDeliveries.id })
    .from(logoutDeliveries)
    .where(and(eq(logoutDeliveries.status, 'PENDING'), lte(logoutDeliveries.nextAttemptAt, sql`now()`)))
    .orderBy(logoutDeliveries.nextAttemptAt)
    .limit(BATCH)
    .for('update', { skipLocked: true });
  return ctx.db
    .update(logoutDeliveries)
    .set({
      attempts: sql`${logoutDeliveries.attempts} + 1`,
      nextAttemptAt: sql`now() + make_interval(secs => ${LEASE_SECONDS})`,
    })
    .where(inArray(logoutDeliveries.id, due))
    .returning();
}

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

async function record(ctx: Ctx, d: Delivery, error: string | undefined): Promise<void> {
  const failed = error !== undefined && d.attempts >= MAX_LOGOUT_ATTEMPTS;
  await execute(ctx, async (work) => {
    if (error === undefined) {
      await work.tx
        .update(logoutDeliveries)
        .set({ status: 'SENT', sentAt: new Date(), lastError: null })
        .where(eq(logoutDeliveries.id, d.id));
    } else {
      await work.tx
        .update(logoutDeliveries)
        .set({
          status: failed ? 'FAILED' : 'PENDING',
          lastError: error.slice(0, 500),
          nextAttemptAt: sql`now() + make_interval(secs => ${logoutRetryDelay(d.attempts)})`,
        })
        .where(eq(logoutDeliveries.id, d.id));
    }
    const base = { aggregateType: 'session' as const, aggregateId: d.sessionId, resourceOwner: d.orgId };
    const ids = { clientId: d.clientId, deliveryId: d.id, attempts: d.attempts };
    if (error === undefined) work.push({ ...base, type: 'session.logout_token.sent', payload: ids });
    else if (failed) work.push({ ...base, type: 'session.logout_token.failed', payload: { ...ids, error } });
  });
}

/** Delivers one batch of due logout tokens, concurrently; returns how many rows it claimed. */
export async function deliverDueLogouts(deps: Deps): Promise<number> {
  const ctx: Ctx = {
    db: deps.database.db,
    instanceId: deps.instanceId,
    principal: systemPrincipal(deps.instanceId, SERVICE),
    service: SERVICE,
  };
  const batch = await claimDue(ctx);
  if (batch.length === 0) return 0;
  const key = await currentSigningKey(ctx, loadMasterKey(deps.config));
  const results = await Promise.all(
    batch.map(async (d) => {
      try {
        const token = await signLogoutToken(key, {
          issuer: deps.config.externalUrl,
          clientId: d.clientId,
          userId: d.userId,
          sessionId: d.sessionId,
          jti: d.id,
        });
        await post(d.uri, token, isDevelopmentIssuer(deps.config.externalUrl));
        return undefined;
      } catch (err) {
        return String((err as Error)?.message ?? err);
      }
    }),
  );
  // Recorded one after the other: PGlite has one connection, and each record is its own command.
  for (const [i, d] of batch.entries()) await record(ctx, d, results[i]);
  return batch.length;
}

const running = new WeakMap<Deps, { again: boolean; done: Promise<void> }>();

/**
 * Runs the delivery now (after a session ended) instead of waiting for the job's next tick. A call
 * while a run is under way makes that run go once more, so rows committed meanwhile are not left
 * for the interval. The promise settles when the rows due now have been tried.
 */
export function deliverLogoutsNow(deps: Deps): Promise<void> {
  const current = running.get(deps);
  if (current) {
    current.again = true;
    return current.done;
  }
  const state = { again: true, done: Promise.resolve() };
  state.done = (async () => {
    try {
      while (state.again) {
        state.again = false;
        while ((await deliverDueLogouts(deps)) === BATCH) {
          // keep going while full batches come back
        }
      }
    } catch (err) {
      deps.log.warn({ err }, 'back-channel logout delivery failed; the job retries');
    } finally {
      running.delete(deps);
    }
  })();
  running.set(deps, state);
  return state.done;
}

/** Retries what is due (failed attempts after their back-off, rows whose replica died mid-delivery). */
export const logoutDeliveryJob: Job = {
  name: 'backchannel-logout-delivery',
  intervalMs: 5000,
  run: (deps) => deliverLogoutsNow(deps),
};
