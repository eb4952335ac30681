import { invalidatePrincipal } from '../../authz/authenticate';
import type { CommitObserver, NewEvent, UnitOfWork } from '../execute';
import { invalidateInstanceSettings } from '../instance/settings';
import { invalidateMachineUser } from '../oidc/m2m/machines';
import { invalidateOrgUsers } from '../org/invalidate-users';
import type { Invalidation } from './declare';
import { EVENT_TYPES, isEventType } from './registry';

type Evict = (work: UnitOfWork, event: NewEvent) => Promise<void>;

/**
 * What each invalidation the registry declares evicts, keyed by the event itself. `token-lookups` is
 * the token cache's own observer (src/domain/oidc/token-cache.ts): it drops every lookup at once.
 */
const EVICT: Record<Exclude<Invalidation, 'token-lookups'>, { key(e: NewEvent): string; evict: Evict }> = {
  principal: { key: (e) => e.aggregateId, evict: (work, e) => invalidatePrincipal(work, e.aggregateId) },
  'machine-user': { key: (e) => e.aggregateId, evict: (work, e) => invalidateMachineUser(work, e.aggregateId) },
  'member-principal': {
    key: memberOf,
    evict: (work, e) => invalidatePrincipal(work, memberOf(e)),
  },
  'instance-settings': {
    key: (e) => e.aggregateId,
    evict: (work, e) => invalidateInstanceSettings(work, e.aggregateId),
  },
  'org-users': { key: (e) => e.aggregateId, evict: (work, e) => invalidateOrgUsers(work, e.aggregateId) },
};

function memberOf(e: NewEvent): string {
  return (e.payload as { userId: string }).userId;
}

/**
 * Evicts, in the committing transaction, the cache entries the appended events make stale as the
 * registry declares (src/domain/events/types/), here at once and in the other replicas by a NOTIFY
 * delivered on commit. Each entry is evicted once per command however many events name it.
 */
export const registryInvalidationObserver: CommitObserver = {
  async beforeCommit(work) {
    const done = new Set<string>();
    for (const e of work.appended) {
      if (!isEventType(e.type)) continue;
      for (const effect of EVENT_TYPES[e.type].invalidates) {
        if (effect === 'token-lookups') continue;
        const { key, evict } = EVICT[effect];
        const id = `${effect}\u0000${key(e)}`;
        if (done.has(id)) continue;
        done.add(id);
        await evict(work, e);
      }
    }
  },
  afterCommit() {},
};
