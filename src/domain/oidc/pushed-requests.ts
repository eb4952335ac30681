import { and, eq, gt, isNull } from 'drizzle-orm';
import { randomToken, sha256Hex } from '../../crypto/random';
import type { Db } from '../../db/client';
import { pushedRequests } from '../../db/schema/index';
import type { Ctx } from '../context';
import { execute } from '../execute';
import { invalidRequestUri } from './oauth-errors';

/** RFC 9126 §2.2: the URN prefix of the request_uri values our PAR endpoint hands out. */
export const PAR_REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/**
 * A pushed request is for the browser redirect right after the push: a minute is plenty, and a
 * request_uri that leaks later is worthless.
 */
const PAR_LIFETIME_S = 60;

/** Stores the checked parameters of an authorization request; answers the request_uri to use them once. */
export async function pushAuthorizationRequest(
  ctx: Ctx,
  input: { clientId: string; orgId: string; params: Record<string, string> },
): Promise<{ requestUri: string; expiresIn: number }> {
  const requestUri = PAR_REQUEST_URI_PREFIX + randomToken(32);
  const id = `par_${randomToken(16)}`;
  const expiresAt = new Date(Date.now() + PAR_LIFETIME_S * 1000);
  await execute(ctx, async (work) => {
    work.created('auth_request', id);
    await work.tx.insert(pushedRequests).values({
      id,
      requestUriHash: sha256Hex(requestUri),
      clientId: input.clientId,
      params: input.params,
      expiresAt,
    });
    work.push({
      aggregateType: 'auth_request',
      aggregateId: id,
      type: 'auth_request.pushed',
      payload: { clientId: input.clientId, expiresAt: expiresAt.toISOString() },
      resourceOwner: input.orgId,
    });
  });
  return { requestUri, expiresIn: PAR_LIFETIME_S };
}

/**
 * The pushed parameters behind a request_uri, for the client that pushed them, exactly once and before
 * they expire. Marking the row used is one conditional update, so two racing uses cannot both win.
 * Any failure is invalid_request_uri; the description tells the client which rule it broke.
 */
export async function usePushedRequest(
  ctx: Ctx,
  input: { requestUri: string; clientId: string; orgId: string },
): Promise<Record<string, string>> {
  const hash = sha256Hex(input.requestUri);
  const now = new Date();
  return execute(ctx, async (work) => {
    const [row] = await work.tx
      .update(pushedRequests)
      .set({ usedAt: now })
      .where(
        and(
          eq(pushedRequests.requestUriHash, hash),
          eq(pushedRequests.clientId, input.clientId),
          isNull(pushedRequests.usedAt),
          gt(pushedRequests.expiresAt, now),
        ),
      )
      .returning({ id: pushedRequests.id, params: pushedRequests.params });
    if (!row) throw await whyUnusable(work.tx, hash, input.clientId, now);
    await work.load('auth_request', row.id);
    work.push({
      aggregateType: 'auth_request',
      aggregateId: row.id,
      type: 'auth_request.pushed.used',
      payload: { clientId: input.clientId },
      resourceOwner: input.orgId,
    });
    return row.params;
  });
}

async function whyUnusable(db: Db, hash: string, clientId: string, now: Date) {
  const [row] = await db.select().from(pushedRequests).where(eq(pushedRequests.requestUriHash, hash));
  if (!row) return invalidRequestUri('request_uri is unknown');
  if (row.clientId !== clientId) return invalidRequestUri('request_uri was pushed by another client');
  if (row.usedAt) return invalidRequestUri('request_uri was already used');
  if (row.expiresAt <= now) return invalidRequestUri('request_uri has expired');
  return invalidRequestUri('request_uri cannot be used');
}
