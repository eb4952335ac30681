import { and, isNotNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  accessTokens,
  authCodes,
  authRequests,
  deviceAuthorizations,
  pushedRequests,
  refreshTokens,
} from '../../db/schema/index';

/** Rows kept this long after they stopped mattering, so that support questions can still be answered. */
const KEEP_MS = 24 * 3600_000;

/**
 * Deletes auth requests, pushed requests, codes, device authorizations and tokens that expired more
 * than a day ago. They can never become valid again; their history stays in the events. Safe on
 * several replicas at once.
 */
export async function pruneExpiredOidcRows(db: Db): Promise<void> {
  const before = new Date(Date.now() - KEEP_MS);
  await db.delete(authRequests).where(lt(authRequests.expiresAt, before));
  await db.delete(pushedRequests).where(lt(pushedRequests.expiresAt, before));
  await db.delete(authCodes).where(lt(authCodes.expiresAt, before));
  await db.delete(deviceAuthorizations).where(lt(deviceAuthorizations.expiresAt, before));
  await db.delete(accessTokens).where(lt(accessTokens.expiresAt, before));
  await db
    .delete(refreshTokens)
    .where(
      or(
        lt(refreshTokens.expiresAt, before),
        and(isNotNull(refreshTokens.revokedAt), lt(refreshTokens.revokedAt, before)),
      ),
    );
}
