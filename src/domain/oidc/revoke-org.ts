import { eq, inArray } from 'drizzle-orm';
import { accessTokens, oidcGrants, refreshTokens, users } from '../../db/schema/index';
import type { UnitOfWork } from '../execute';
import { revokeLive } from './grants';

/**
 * Revokes every grant, refresh token and access token of the organization's users, in the command's
 * transaction. While the organization is inactive its tokens are refused anyway (token-lookup.ts);
 * revoking them means that reactivating it restores sign-in, not the tokens issued before.
 */
export async function revokeTokensOfOrg(work: UnitOfWork, orgId: string): Promise<void> {
  const now = new Date();
  const members = work.tx.select({ id: users.id }).from(users).where(eq(users.orgId, orgId));
  await revokeLive(work, oidcGrants, inArray(oidcGrants.userId, members), now);
  await revokeLive(work, refreshTokens, inArray(refreshTokens.userId, members), now);
  await revokeLive(work, accessTokens, inArray(accessTokens.userId, members), now);
}
