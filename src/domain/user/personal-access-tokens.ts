import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { personalAccessTokens } from '../../db/schema/index';
import { randomToken, sha256Hex } from '../../crypto/random';
import { type UnitOfWork } from '../execute';
import { newId } from '../ids';

// Personal access tokens: opaque bearer tokens for machine users, stored only as a SHA-256.

/** Issues a personal access token; only its SHA-256 is stored, the token is returned once. */
export async function addPersonalAccessToken(
  work: UnitOfWork,
  input: { userId: string; orgId: string; expiresAt?: Date },
): Promise<{ id: string; token: string; createdAt: Date }> {
  const id = newId();
  const token = randomToken(32, 'pcp_');
  const [row] = await work.tx
    .insert(personalAccessTokens)
    .values({ id, userId: input.userId, tokenHash: sha256Hex(token), expiresAt: input.expiresAt })
    .returning({ createdAt: personalAccessTokens.createdAt });
  work.push({
    aggregateType: 'user',
    aggregateId: input.userId,
    type: 'user.personal.access.token.added',
    payload: { tokenId: id, expirationDate: input.expiresAt?.toISOString() },
    resourceOwner: input.orgId,
  });
  return { id, token, createdAt: row.createdAt };
}

/** The token stored under this SHA-256, for authenticating a request that presents it; expired ones too. */
export async function findPersonalAccessToken(
  db: Db,
  tokenHash: string,
): Promise<{ userId: string; expiresAt: Date | null } | undefined> {
  const [found] = await db
    .select({ userId: personalAccessTokens.userId, expiresAt: personalAccessTokens.expiresAt })
    .from(personalAccessTokens)
    .where(eq(personalAccessTokens.tokenHash, tokenHash));
  return found;
}
