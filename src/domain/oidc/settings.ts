import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { DEFAULT_INSTANCE_SETTINGS, type InstanceSettings, instances } from '../../db/schema/index';

const TTL_MS = 2000;
const cache = new WeakMap<Db, { at: number; value: Promise<InstanceSettings> }>();

/**
 * The instance settings the OIDC layer reads on every token (lifetimes, lockout, signing algorithm).
 * Cached per database handle for two seconds: a changed setting reaches every replica within that time.
 */
export function instanceSettings(db: Db, instanceId: string): Promise<InstanceSettings> {
  const hit = cache.get(db);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.value;
  const value = db
    .select({ settings: instances.settings })
    .from(instances)
    .where(eq(instances.id, instanceId))
    .then(([row]) => ({ ...DEFAULT_INSTANCE_SETTINGS, ...(row?.settings ?? {}) }));
  value.catch(() => cache.delete(db));
  cache.set(db, { at: Date.now(), value });
  return value;
}

/** Longest time a token signed now can stay valid: the key that signed it must stay published that long. */
export function longestTokenLifetimeMs(s: InstanceSettings): number {
  return Math.max(s.accessTokenLifetimeSeconds, s.idTokenLifetimeSeconds) * 1000;
}
