import { and, desc, eq, gt, isNull, or } from 'drizzle-orm';
import { applications, oidcGrants } from '../../db/schema/index';
import type { Ctx } from '../context';
import { authorize, readUser, userNotFound } from './access';
import { checkId } from './validate';

export interface AuthorizedApplication {
  applicationId: string;
  name: string;
  projectId: string;
  clientId: string;
  scopes: string[];
  firstAuthorized: Date;
  lastAuthorized: Date;
}

/**
 * ListAuthorizedApplications: the applications holding a live grant of the user (not revoked, not past
 * its absolute expiry), one entry per application with the union of the granted scopes. The user
 * itself, or `user.read` on the user's organization.
 */
export async function listAuthorizedApplications(ctx: Ctx, userId: string): Promise<AuthorizedApplication[]> {
  const id = checkId('user_id', userId);
  const user = await readUser(ctx.db, id);
  if (!user) throw userNotFound();
  authorize(ctx, user, 'user.read', { self: true });
  const grants = await ctx.db
    .select({
      applicationId: oidcGrants.applicationId,
      name: applications.name,
      projectId: oidcGrants.projectId,
      clientId: oidcGrants.clientId,
      scopes: oidcGrants.scopes,
      createdAt: oidcGrants.createdAt,
    })
    .from(oidcGrants)
    .innerJoin(applications, eq(applications.id, oidcGrants.applicationId))
    .where(
      and(
        eq(oidcGrants.userId, user.id),
        isNull(oidcGrants.revokedAt),
        or(isNull(oidcGrants.absoluteExpiresAt), gt(oidcGrants.absoluteExpiresAt, new Date())),
      ),
    )
    .orderBy(desc(oidcGrants.createdAt));
  const byApp = new Map<string, AuthorizedApplication>();
  for (const g of grants) {
    const seen = byApp.get(g.applicationId);
    if (!seen) {
      byApp.set(g.applicationId, {
        applicationId: g.applicationId,
        name: g.name,
        projectId: g.projectId,
        clientId: g.clientId,
        scopes: [...g.scopes],
        firstAuthorized: g.createdAt,
        lastAuthorized: g.createdAt,
      });
      continue;
    }
    seen.scopes.push(...g.scopes);
    seen.firstAuthorized = g.createdAt; // newest first: each later row is older
  }
  return [...byApp.values()].map((a) => ({ ...a, scopes: [...new Set(a.scopes)].sort() }));
}
