import { and, inArray, isNull } from 'drizzle-orm';
import { accessTokens, oidcGrants, refreshTokens, users } from '../../db/schema/index';
import { eq } from 'drizzle-orm';
import type { UnitOfWork } from '../execute';

/**
 * Revokes every grant, refresh token and access token of the organization's users, in the command's
 * transaction. While the organization is inactive its tokens are refused anyway (token-lookup.ts);
 * revoking them means that reactivating it restores sign-in, not the tokens issued before.
 */
export async function revokeTokensOfOrg(work: UnitOfWork, orgId: string): Promise<void> {
  const now = new Date();
  const members = work.tx.select({ id: users.id }).from(users).where(eq(users.orgId, orgId));
  await work.tx
    .update(oidcGrants)
    .set({ revokedAt: now })
    .where(and(inArray(oidcGrants.userId, members), isNull(oidcGrants.revokedAt)));
  await work.tx
    .update(refreshTokens)
    .set({ revokedAt: now })
    .where(and(inArray(refreshTokens.userId, members), isNull(refreshTokens.revokedAt)));
  await work.tx
    .update(accessTokens)
    .set({ revokedAt: now })
    .where(and(inArray(accessTokens.userId, members), isNull(accessTokens.revokedAt)));
}
