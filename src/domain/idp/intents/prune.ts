import { lt } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { idpIntents } from '../../../db/schema/index';

/** Intents are kept this long after they expired (support questions); their history stays in the events. */
const KEEP_MS = 24 * 3600_000;

/**
 * Deletes sign-ins at upstreams that expired more than a day ago, with whatever upstream tokens
 * they kept. An expired intent can never be used again. Safe on several replicas at once.
 */
export async function pruneExpiredIntents(db: Db): Promise<void> {
  await db.delete(idpIntents).where(lt(idpIntents.expiresAt, new Date(Date.now() - KEEP_MS)));
}
