import { and, eq, exists, isNotNull, isNull, lt, ne, or } from 'drizzle-orm';
import { accessTokens, applications, refreshTokens } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { deleteApplication } from '../commands';

/**
 * The unused-client lifetime of dynamic registration. The token endpoints are not touched: this job
 * notes `first_token_at` for self-registered clients that have a token row (token rows stay a day
 * past their expiry and the job runs hourly, so no issued token is missed), then removes, through
 * DeleteApplication and its events, those that registered longer ago than the lifetime and never
 * got a token. Returns the client ids removed.
 */
export async function pruneUnusedRegisteredClients(ctx: Ctx, lifetimeSeconds: number): Promise<string[]> {
  if (lifetimeSeconds <= 0) return [];
  const db = ctx.db;
  const unused = and(isNotNull(applications.registrationTokenHash), isNull(applications.firstTokenAt));
  const hasToken = or(
    exists(db.select().from(accessTokens).where(eq(accessTokens.clientId, applications.clientId))),
    exists(db.select().from(refreshTokens).where(eq(refreshTokens.clientId, applications.clientId))),
  );
  await db.update(applications).set({ firstTokenAt: new Date() }).where(and(unused, hasToken));
  const before = new Date(Date.now() - lifetimeSeconds * 1000);
  const stale = await db
    .select({ id: applications.id, clientId: applications.clientId })
    .from(applications)
    .where(and(unused, ne(applications.state, 'REMOVED'), lt(applications.createdAt, before)));
  for (const app of stale) await deleteApplication(ctx, app.id);
  return stale.map((a) => a.clientId as string);
}
