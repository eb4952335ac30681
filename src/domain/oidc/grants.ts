import { and, eq, isNull, type SQL } from 'drizzle-orm';
import { accessTokens, oidcGrants, refreshTokens } from '../../db/schema/index';
import type { ClaimsRequest } from './claims-request';
import type { Ctx } from '../context';
import { execute, type UnitOfWork } from '../execute';
import { newId } from '../ids';

export type Grant = typeof oidcGrants.$inferSelect;

export interface NewGrant {
  sessionId: string | null;
  userId: string;
  orgId: string;
  clientId: string;
  applicationId: string;
  projectId: string;
  scopes: string[];
  audience: string[];
  authTime: Date | null;
  amr: string[];
  absoluteExpiresAt: Date | null;
  /** impersonation: the actor, kept so that refreshed tokens carry the same `act` */
  actor?: { userId: string; clientId?: string } | null;
  /** the authorization request's `claims` parameter: every ID token and userinfo of the grant answer it */
  claims?: ClaimsRequest | null;
}

/**
 * The grant a browser session's sign-in gives a client (the code flow, the device flow): the
 * session's first factor is its auth time, its `amr` the grant's, and refresh tokens of the grant
 * end `refreshTokenAbsoluteSeconds` from now.
 */
export function createSessionGrant(
  work: UnitOfWork,
  g: {
    session: { id: string; amr: string[]; authTime: Date | null };
    user: { id: string; orgId: string };
    client: { clientId: string; applicationId: string; projectId: string };
    scopes: string[];
    audience: string[];
    refreshTokenAbsoluteSeconds: number;
    claims?: ClaimsRequest | null;
  },
): Promise<Grant> {
  return createGrant(work, {
    sessionId: g.session.id,
    userId: g.user.id,
    orgId: g.user.orgId,
    clientId: g.client.clientId,
    applicationId: g.client.applicationId,
    projectId: g.client.projectId,
    scopes: g.scopes,
    audience: g.audience,
    authTime: g.session.authTime,
    amr: g.session.amr,
    absoluteExpiresAt: new Date(Date.now() + g.refreshTokenAbsoluteSeconds * 1000),
    claims: g.claims ?? null,
  });
}

/** A user's grant to a client (event `oidc_session.added`); codes and tokens hang off it. */
export async function createGrant(work: UnitOfWork, g: NewGrant): Promise<Grant> {
  const id = newId();
  work.created('oidc_session', id);
  const [row] = await work.tx
    .insert(oidcGrants)
    .values({
      id,
      sessionId: g.sessionId,
      userId: g.userId,
      clientId: g.clientId,
      applicationId: g.applicationId,
      projectId: g.projectId,
      scopes: g.scopes,
      audience: g.audience,
      authTime: g.authTime,
      amr: g.amr,
      absoluteExpiresAt: g.absoluteExpiresAt,
      actorUserId: g.actor?.userId ?? null,
      actorClientId: g.actor?.clientId ?? null,
      claims: g.claims ?? null,
    })
    .returning();
  work.push({
    aggregateType: 'oidc_session',
    aggregateId: id,
    type: 'oidc_session.added',
    payload: {
      userId: g.userId,
      sessionId: g.sessionId,
      clientId: g.clientId,
      scope: g.scopes,
      audience: g.audience,
      actorUserId: g.actor?.userId,
    },
    resourceOwner: g.orgId,
  });
  return row;
}

/**
 * Revokes a grant and every token issued from it (code replay, refresh token reuse). Runs in a
 * transaction of its own: the request that detected the attack fails, the revocation stays.
 */
export async function revokeGrant(ctx: Ctx, grantId: string, reason: string): Promise<void> {
  await execute(ctx, async (work) => {
    const now = new Date();
    const [g] = await work.tx.update(oidcGrants).set({ revokedAt: now }).where(eq(oidcGrants.id, grantId)).returning();
    await revokeLive(work, accessTokens, eq(accessTokens.grantId, grantId), now);
    await revokeLive(work, refreshTokens, eq(refreshTokens.grantId, grantId), now);
    if (g) {
      await work.load('oidc_session', grantId);
      work.push({
        aggregateType: 'oidc_session',
        aggregateId: grantId,
        type: 'oidc_session.revoked',
        payload: { reason },
        resourceOwner: ctx.instanceId,
      });
    }
  });
}

/** Marks the grants or tokens `selected` that are not revoked yet as revoked `now` (earlier revocations stay). */
export async function revokeLive(
  work: UnitOfWork,
  table: typeof oidcGrants | typeof accessTokens | typeof refreshTokens,
  selected: SQL,
  now: Date,
): Promise<void> {
  await work.tx
    .update(table)
    .set({ revokedAt: now })
    .where(and(selected, isNull(table.revokedAt)));
}

/** The actor of an impersonating grant, as issueAccessToken / buildIdToken take it. */
export function grantActor(g: Grant): { userId: string; clientId?: string } | null {
  return g.actorUserId ? { userId: g.actorUserId, ...(g.actorClientId ? { clientId: g.actorClientId } : {}) } : null;
}

export async function findGrant(work: UnitOfWork | Ctx, grantId: string): Promise<Grant | undefined> {
  const db = 'tx' in work ? work.tx : work.db;
  const [row] = await db.select().from(oidcGrants).where(eq(oidcGrants.id, grantId));
  return row;
}
