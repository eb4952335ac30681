import { and, eq, gt, isNull } from 'drizzle-orm';
import { randomToken } from '../../crypto/random';
import type { Db } from '../../db/client';
import { authRequests } from '../../db/schema/index';
import type { Ctx } from '../context';
import { notFound } from '../errors';
import type { EventPayloads } from '../events/registry';
import { execute, type UnitOfWork } from '../execute';

export type AuthRequest = typeof authRequests.$inferSelect;
export type NewAuthRequest = Omit<
  AuthRequest,
  | 'id'
  | 'createdAt'
  | 'expiresAt'
  | 'sessionId'
  | 'completedAt'
  | 'error'
  | 'errorDescription'
  | 'loginName'
  | 'callbackKeyHash'
>;

/** An auth request stays usable for 30 minutes: time enough to sign in, short enough to be forgotten. */
const AUTH_REQUEST_LIFETIME_MS = 30 * 60_000;

export async function createAuthRequest(ctx: Ctx, input: NewAuthRequest, orgId: string): Promise<AuthRequest> {
  const id = `ar_${randomToken(24)}`;
  return execute(ctx, async (work) => {
    work.created('auth_request', id);
    const [row] = await work.tx
      .insert(authRequests)
      .values({ ...input, id, expiresAt: new Date(Date.now() + AUTH_REQUEST_LIFETIME_MS) })
      .returning();
    work.push({
      aggregateType: 'auth_request',
      aggregateId: id,
      type: 'auth_request.added',
      payload: {
        clientId: input.clientId,
        scope: input.scopes,
        responseType: input.responseType,
        prompt: input.prompt,
        ...(input.resource ? { resource: input.resource } : {}),
      },
      resourceOwner: orgId,
    });
    return row;
  });
}

/** Pending: neither answered nor expired; only such a request may change or be answered. */
function pending(id: string) {
  return and(eq(authRequests.id, id), isNull(authRequests.completedAt), gt(authRequests.expiresAt, new Date()));
}

/** A pending (not expired, not yet answered) auth request. */
export async function findPendingAuthRequest(db: Db, id: string): Promise<AuthRequest | undefined> {
  if (!id) return undefined;
  const [row] = await db.select().from(authRequests).where(pending(id));
  return row;
}

async function update<T extends 'auth_request.login_name.set' | 'auth_request.session.linked' | 'auth_request.failed'>(
  ctx: Ctx,
  id: string,
  type: T,
  set: Partial<AuthRequest>,
  payload?: EventPayloads[T],
): Promise<AuthRequest> {
  return execute(ctx, (work) => updateIn(work, id, type, set, payload));
}

async function updateIn<
  T extends 'auth_request.login_name.set' | 'auth_request.session.linked' | 'auth_request.failed',
>(work: UnitOfWork, id: string, type: T, set: Partial<AuthRequest>, payload?: EventPayloads[T]): Promise<AuthRequest> {
  await work.load('auth_request', id);
  const [row] = await work.tx.update(authRequests).set(set).where(pending(id)).returning();
  if (!row) throw notFound('Errors.AuthRequest.NotFound', 'the authorization request does not exist or has expired');
  work.push({ aggregateType: 'auth_request', aggregateId: id, type, payload, resourceOwner: work.ctx.instanceId });
  return row;
}

export function setAuthRequestLoginName(ctx: Ctx, id: string, loginName: string): Promise<AuthRequest> {
  return update(ctx, id, 'auth_request.login_name.set', { loginName });
}

/** setAuthRequestLoginName in the caller's unit of work (a sign-in that commits as one). */
export function setAuthRequestLoginNameIn(work: UnitOfWork, id: string, loginName: string): Promise<AuthRequest> {
  return updateIn(work, id, 'auth_request.login_name.set', { loginName });
}

/**
 * Links the session that authenticated the user; the callback then answers the client. Only the
 * finish of a sign-in calls it (src/domain/sign-in/finish.ts), after checking the session in the same
 * unit of work: a link without that check would let a session that misses a factor answer.
 */
export function linkSession(
  work: UnitOfWork,
  id: string,
  sessionId: string,
  callbackKeyHash: string | null = null,
): Promise<AuthRequest> {
  return updateIn(
    work,
    id,
    'auth_request.session.linked',
    { sessionId, error: null, errorDescription: null, callbackKeyHash },
    { sessionId },
  );
}

/** A custom login UI ends the request with an OAuth error for the client (e.g. access_denied). */
export function failAuthRequest(
  ctx: Ctx,
  id: string,
  error: string,
  description: string,
  callbackKeyHash: string | null = null,
): Promise<AuthRequest> {
  return update(
    ctx,
    id,
    'auth_request.failed',
    { error, errorDescription: description, sessionId: null, callbackKeyHash },
    { error },
  );
}

/** Marks the request answered, exactly once: a second callback finds nothing. */
export async function completeAuthRequest(ctx: Ctx, id: string): Promise<AuthRequest | undefined> {
  const [row] = await ctx.db.update(authRequests).set({ completedAt: new Date() }).where(pending(id)).returning();
  return row;
}
