import { perServer, type Runtime } from '../../deps';
import { invalidateAfterCommit, onInvalidation } from '../cache';
import { eventTypes, typesInvalidating } from '../events/registry';
import type { CommitObserver } from '../execute';

/**
 * Looked-up access tokens (userinfo and introspection answer from them), cached by each server while
 * nothing that could change a lookup's answer has happened anywhere. Instead of tracking which
 * token a change touches, every command whose events are not known to be neutral starts a new
 * generation — here at once and before and after its commit, in the other replicas by a NOTIFY that
 * PostgreSQL delivers on commit. So a revocation, a logout, a locked user, a changed profile or
 * authorization is seen by the next request; a busy write load only lowers the hit rate.
 */
const NAME = 'access-token-lookups';
const MAX_ENTRIES = 10_000;
// Bounds staleness should a notification be lost (the listener also clears on reconnect).
const MAX_AGE_MS = 10_000;

/**
 * Events that cannot change the answer for a token issued before them (new things, sign-in steps): the
 * registered types whose declaration does not list `token-lookups` (src/domain/events/types/). A type
 * the registry does not know is never neutral.
 */
const RELEVANT = typesInvalidating('token-lookups');
const NEUTRAL: ReadonlySet<string> = new Set(eventTypes.filter((t) => !RELEVANT.has(t)));

/**
 * One server's lookups. Every entry belongs to the current generation (a new one empties the map); the
 * counter only tells a lookup still in flight that a change began meanwhile.
 */
interface Lookups {
  generation: number;
  entries: Map<string, { at: number; value: unknown }>;
}

const lookups = perServer((runtime): Lookups => {
  const own: Lookups = { generation: 0, entries: new Map() };
  onInvalidation(runtime, NAME, () => newGeneration(own));
  return own;
});

function newGeneration(own: Lookups) {
  own.generation++;
  own.entries.clear();
}

const relevant = (types: ReadonlySet<string>) => {
  for (const t of types) if (!NEUTRAL.has(t)) return true;
  return false;
};

/** Empties the cache around every command that could change a looked-up token; src/wiring.ts installs it. */
export const tokenCacheObserver: CommitObserver = {
  async beforeCommit(scope, types) {
    if (relevant(types)) await invalidateAfterCommit(scope, NAME, '');
  },
  afterCommit(types, work) {
    // A lookup that ran between the eviction above and the commit saw the old state: drop it too.
    if (relevant(types)) newGeneration(work.ctx.runtime.get(lookups));
  },
};

/** The server's cached answer for `key`, or what `load` finds (cached only when defined). */
export async function cachedLookup<T>(
  runtime: Runtime,
  key: string,
  load: () => Promise<T | undefined>,
  stillValid: (value: T) => boolean,
): Promise<T | undefined> {
  const own = runtime.get(lookups);
  const { entries } = own;
  const hit = entries.get(key);
  if (hit && Date.now() - hit.at < MAX_AGE_MS && stillValid(hit.value as T)) return hit.value as T;
  const startedIn = own.generation;
  const value = await load();
  // Stored only if no change began while it loaded; otherwise the next request loads again.
  if (value !== undefined && startedIn === own.generation) {
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(key, { at: Date.now(), value });
  }
  return value;
}
