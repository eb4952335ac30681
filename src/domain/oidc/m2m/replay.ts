import { lt } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { dpopUsedProofs, m2mRevokedTokens, m2mUsedAssertions } from '../../../db/schema/index';
import { perServer } from '../../../deps';
import type { Source } from '../../context';

interface Claim {
  id: string;
  expiresAt: Date;
  resolve: (fresh: boolean) => void;
  reject: (err: unknown) => void;
}

const MAX_BATCH = 500;
/** The tables of single-use ids (same shape): JWT-profile assertions and DPoP proofs. */
export type UsedOnceTable = typeof m2mUsedAssertions | typeof dpopUsedProofs;
/** Each server's claims waiting for the next write, by table and by the database handle they came with. */
const queues = perServer(() => new Map<UsedOnceTable, Map<Db, Claim[]>>());

/**
 * Records an assertion's `jti` as used; resolves true the first time, false for a replay (on any
 * replica: the primary key decides). Claims of concurrent requests are written together in one
 * INSERT … ON CONFLICT DO NOTHING (group commit), so the JWT profile grant costs one statement per
 * batch, not per request; each request is answered once its row is durable.
 */
export function claimJtiOnce(
  { db, runtime }: Source,
  id: string,
  expiresAt: Date,
  table: UsedOnceTable = m2mUsedAssertions,
): Promise<boolean> {
  const ofServer = runtime.get(queues);
  return new Promise((resolve, reject) => {
    let perDb = ofServer.get(table);
    if (!perDb) {
      perDb = new Map();
      ofServer.set(table, perDb);
    }
    let q = perDb.get(db);
    if (!q) {
      q = [];
      perDb.set(db, q);
      setImmediate(() => flush(perDb, db, table));
    }
    q.push({ id, expiresAt, resolve, reject });
  });
}

async function flush(perDb: Map<Db, Claim[]>, db: Db, table: UsedOnceTable): Promise<void> {
  const all = perDb.get(db) ?? [];
  perDb.delete(db);
  for (let i = 0; i < all.length; i += MAX_BATCH) await writeBatch(db, table, all.slice(i, i + MAX_BATCH));
}

async function writeBatch(db: Db, table: UsedOnceTable, batch: Claim[]): Promise<void> {
  // The same jti twice in one batch: only the first can be fresh.
  const first = new Map<string, Claim>();
  for (const c of batch) if (!first.has(c.id)) first.set(c.id, c);
  try {
    // both tables have the same columns; the cast only picks one of the two identical row types
    const t = table as typeof m2mUsedAssertions;
    const rows = await db
      .insert(t)
      .values([...first.values()].map((c) => ({ id: c.id, expiresAt: c.expiresAt })))
      .onConflictDoNothing()
      .returning({ id: t.id });
    const fresh = new Set(rows.map((r) => r.id));
    for (const c of batch) c.resolve(first.get(c.id) === c && fresh.has(c.id));
  } catch (err) {
    for (const c of batch) c.reject(err);
  }
}

/**
 * Forgets used assertions, DPoP proofs and revocations of tokens that have expired (they fail on
 * `exp` / `iat` anyway).
 */
export async function pruneMachineRows(db: Db): Promise<void> {
  const now = new Date();
  await db.delete(m2mUsedAssertions).where(lt(m2mUsedAssertions.expiresAt, now));
  await db.delete(m2mRevokedTokens).where(lt(m2mRevokedTokens.expiresAt, now));
  await db.delete(dpopUsedProofs).where(lt(dpopUsedProofs.expiresAt, now));
}
