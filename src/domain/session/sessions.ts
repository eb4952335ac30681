import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { randomToken, sha256Hex } from '../../crypto/random';
import type { Db } from '../../db/client';
import { accessTokens, applications, oidcGrants, orgs, refreshTokens, sessions, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { unauthenticated } from '../errors';
import { execute, type UnitOfWork } from '../execute';
import { type ListResult, listResult, ordered, type PageRequest, page } from '../list/page';
import { constantTimeEqual } from '../../crypto/random';
import { amrOf, type FactorChecks, recordFactorCheck } from './factors';
import { live } from './live';
import { queueBackchannelLogouts } from '../oidc/logout/queue';

export type Session = typeof sessions.$inferSelect;

export interface SessionView extends Session {
  loginName: string | null;
  displayName: string | null;
  userState: string | null;
  /** the user must set a new password before this session may answer an auth request */
  passwordChangeRequired: boolean | null;
}

/** Where a session signed in from, as the person's lists of sessions show it. */
export interface SessionOrigin {
  /** the browser's User-Agent header */
  userAgent?: string;
  ipAddress?: string;
  /** the client the sign-in was for */
  clientId?: string;
}

/** What a new session starts with. */
export interface NewSession extends SessionOrigin {
  userId?: string;
  orgId?: string;
  userAgentHash?: string;
  passwordChecked?: boolean;
  /** the hosted login's auth request the password was checked for */
  signedInFor?: string;
  lifetimeSeconds?: number;
}

/** A User-Agent header is the client's to make as long as it likes; a list needs no more than this of it. */
const USER_AGENT_MAX = 512;

/**
 * Creates a session for a user whose password was just checked (or, for the API, an empty one that
 * SetSession fills). Returns the session token once; only its SHA-256 is stored.
 */
export function createSession(ctx: Ctx, input: NewSession): Promise<{ id: string; token: string; session: Session }> {
  return execute(ctx, (work) => addSession(work, input));
}

/** createSession in the caller's unit of work (a sign-in that commits with the check that proved it). */
export async function addSession(
  work: UnitOfWork,
  input: NewSession,
): Promise<{ id: string; token: string; session: Session }> {
  const id = randomToken(16);
  const token = randomToken(32, 'pcs_');
  const now = new Date();
  const signedInFor = input.signedInFor ? { authRequest: input.signedInFor } : {};
  const factorChecks: FactorChecks = input.passwordChecked
    ? { password: { at: now.toISOString(), ...signedInFor } }
    : {};
  work.created('session', id);
  const [session] = await work.tx
    .insert(sessions)
    .values({
      id,
      tokenHash: sha256Hex(token),
      userAgentHash: input.userAgentHash,
      userId: input.userId,
      orgId: input.orgId,
      passwordCheckedAt: input.passwordChecked ? now : null,
      factorChecks,
      amr: amrOf(factorChecks),
      expiresAt: input.lifetimeSeconds ? new Date(now.getTime() + input.lifetimeSeconds * 1000) : null,
      userAgent: input.userAgent?.slice(0, USER_AGENT_MAX) || null,
      ipAddress: input.ipAddress || null,
      clientId: input.clientId || null,
    })
    .returning();
  work.push({
    aggregateType: 'session',
    aggregateId: id,
    type: 'session.added',
    payload: { userId: input.userId, checks: input.passwordChecked ? ['password'] : [] },
    resourceOwner: input.orgId ?? work.ctx.instanceId,
  });
  return { id, token, session };
}

/** Records a fresh password check on an existing session (re-authentication, SetSession). */
export async function setSessionPasswordChecked(
  ctx: Ctx,
  sessionId: string,
  user: { id: string; orgId: string },
): Promise<Session> {
  return execute(ctx, (work) => recordFactorCheck(work, sessionId, user, 'password'));
}

/** A live session by id. With a token the caller must hold it (API callers prove ownership this way). */
export async function getSession(db: Db, sessionId: string, token?: string): Promise<Session | undefined> {
  const [row] = await db
    .select()
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), live()));
  if (!row) return undefined;
  if (token !== undefined && !constantTimeEqual(row.tokenHash, sha256Hex(token)))
    throw unauthenticated('the session token does not match', 'Errors.Session.Token.Invalid');
  return row;
}

/** The live sessions of a browser (by the hash of its user-agent cookie), newest first, with the user's names. */
export async function sessionsOfUserAgent(db: Db, userAgentHash: string): Promise<SessionView[]> {
  const rows = await db
    .select({
      session: sessions,
      username: users.username,
      domain: orgs.primaryDomain,
      displayName: users.displayName,
      userState: users.state,
      passwordChangeRequired: users.passwordChangeRequired,
    })
    .from(sessions)
    .leftJoin(users, eq(users.id, sessions.userId))
    .leftJoin(orgs, eq(orgs.id, users.orgId))
    .where(and(eq(sessions.userAgentHash, userAgentHash), live()))
    .orderBy(desc(sessions.changedAt));
  return rows.map((r) => ({
    ...r.session,
    loginName: r.username ? `${r.username}@${r.domain}` : null,
    displayName: r.displayName,
    userState: r.userState,
    passwordChangeRequired: r.passwordChangeRequired,
  }));
}

/** ListSessions: live sessions, newest first unless `asc`, paged by the rule every v2 list follows. */
/** A session as lists show it: with the name of the application it signed in to, if that still exists. */
export type ListedSession = Session & { applicationName: string | null };

export async function listSessions(
  db: Db,
  filter: { userId?: string; page?: PageRequest },
): Promise<ListResult<ListedSession>> {
  const p = page(filter.page);
  const where = and(live(), filter.userId ? eq(sessions.userId, filter.userId) : undefined);
  const found = await listResult(
    p,
    db
      .select({ session: sessions, applicationName: applications.name })
      .from(sessions)
      .leftJoin(applications, eq(applications.clientId, sessions.clientId))
      .where(where)
      .orderBy(...ordered(p, sessions.createdAt, sessions.id))
      .limit(p.limit)
      .offset(p.offset),
    db.select({ n: sql<number>`count(*)::int` }).from(sessions).where(where),
  );
  return { ...found, items: found.items.map((r) => ({ ...r.session, applicationName: r.applicationName })) };
}

/** Moves a browser's sessions to a new cookie value (done at every login: no session fixation). */
export async function rebindUserAgent(db: Db, fromHash: string | undefined, toHash: string): Promise<void> {
  if (!fromHash) return;
  await db
    .update(sessions)
    .set({ userAgentHash: toHash })
    .where(and(eq(sessions.userAgentHash, fromHash), live()));
}

/**
 * Ends sessions and revokes everything issued from them: their grants, access tokens and refresh
 * tokens (introspection then answers `active: false`). Clients with a back-channel logout URI get a
 * logout token queued in the same transaction; the caller may deliver it at once (deliverLogoutsNow).
 */
export async function terminateSessions(ctx: Ctx, sessionIds: string[]): Promise<number> {
  if (sessionIds.length === 0) return 0;
  return execute(ctx, async (work) => {
    const now = new Date();
    const ended = await work.tx
      .update(sessions)
      .set({ terminatedAt: now, changedAt: now })
      .where(and(inArray(sessions.id, sessionIds), isNull(sessions.terminatedAt)))
      .returning({ id: sessions.id, orgId: sessions.orgId, userId: sessions.userId });
    if (ended.length === 0) return 0;
    // The clients holding a grant from these sessions are told, in the commit that ends them.
    await queueBackchannelLogouts(work, ended);
    const ids = ended.map((e) => e.id);
    const grants = await work.tx
      .update(oidcGrants)
      .set({ revokedAt: now })
      .where(and(inArray(oidcGrants.sessionId, ids), isNull(oidcGrants.revokedAt)))
      .returning({ id: oidcGrants.id });
    await work.tx
      .update(accessTokens)
      .set({ revokedAt: now })
      .where(and(inArray(accessTokens.sessionId, ids), isNull(accessTokens.revokedAt)));
    if (grants.length) {
      await work.tx
        .update(refreshTokens)
        .set({ revokedAt: now })
        .where(
          and(
            inArray(
              refreshTokens.grantId,
              grants.map((g) => g.id),
            ),
            isNull(refreshTokens.revokedAt),
          ),
        );
    }
    for (const e of ended) {
      await work.load('session', e.id);
      work.push({
        aggregateType: 'session',
        aggregateId: e.id,
        type: 'session.terminated',
        resourceOwner: e.orgId ?? ctx.instanceId,
      });
    }
    return ended.length;
  });
}
