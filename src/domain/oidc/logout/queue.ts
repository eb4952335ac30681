import { and, eq, inArray } from 'drizzle-orm';
import { applications, logoutDeliveries, oidcGrants } from '../../../db/schema/index';
import { usableLogoutUri } from '../../application/logout-uris';
import type { UnitOfWork } from '../../execute';
import { newId } from '../../ids';

/** A session that just ended: its id, user and organization. */
export interface EndedSession {
  id: string;
  userId: string | null;
  orgId: string | null;
}

/**
 * Inside the transaction that ends the sessions: one outbox row per (application, session) for
 * every active application with a back-channel logout URI that holds a grant from one of them, so
 * a logout notice exists exactly when the session's end commits. Returns how many were queued.
 */
export async function queueBackchannelLogouts(work: UnitOfWork, ended: EndedSession[]): Promise<number> {
  const bySession = new Map(ended.map((s) => [s.id, s]));
  if (bySession.size === 0) return 0;
  const rows = await work.tx
    .selectDistinct({
      sessionId: oidcGrants.sessionId,
      userId: oidcGrants.userId,
      applicationId: applications.id,
      clientId: oidcGrants.clientId,
      oidc: applications.oidc,
    })
    .from(oidcGrants)
    .innerJoin(applications, eq(applications.id, oidcGrants.applicationId))
    .where(and(inArray(oidcGrants.sessionId, [...bySession.keys()]), eq(applications.state, 'ACTIVE')));
  const seen = new Set<string>();
  let queued = 0;
  for (const r of rows) {
    const session = r.sessionId ? bySession.get(r.sessionId) : undefined;
    const uri = r.oidc ? usableLogoutUri(r.oidc, r.oidc.backchannelLogoutUri) : undefined;
    const key = `${r.applicationId}\u0000${r.sessionId}`;
    if (!session || !uri || seen.has(key)) continue;
    seen.add(key);
    const id = newId();
    await work.tx.insert(logoutDeliveries).values({
      id,
      applicationId: r.applicationId,
      clientId: r.clientId,
      uri,
      userId: r.userId,
      sessionId: session.id,
      orgId: session.orgId ?? work.ctx.instanceId,
    });
    work.push({
      aggregateType: 'session',
      aggregateId: session.id,
      type: 'session.logout_token.queued',
      payload: { clientId: r.clientId, deliveryId: id },
      resourceOwner: session.orgId ?? work.ctx.instanceId,
    });
    queued++;
  }
  return queued;
}
