import { invalidatePrincipal } from '../../authz/authenticate';
import type { CommitObserver, NewEvent, UnitOfWork } from '../execute';
import { invalidateInstance } from '../instance/queries';
import { invalidateInstanceSettings } from '../instance/settings';
import { invalidateMachineUser } from '../oidc/m2m/machines';
import { invalidateOrgUsers } from '../org/invalidate-users';
import { invalidateLoginPolicy } from '../policy/login-policy';
import type { Invalidation } from './declare';
import { EVENT_TYPES, isEventType } from './registry';

const aggregate = (e: NewEvent) => e.aggregateId;

/**
 * What each invalidation the registry declares evicts: the cache entry keyed by the event's aggregate
 * id or, for an administrator event, by the member it names. `token-lookups` is the token cache's own
 * observer (src/domain/oidc/token-cache.ts), which drops every lookup at once.
 */
const EVICT: Record<
  Exclude<Invalidation, 'token-lookups'>,
  { key: (e: NewEvent) => string; evict: (work: UnitOfWork, key: string) => Promise<void> }
> = {
  principal: { key: aggregate, evict: invalidatePrincipal },
  'machine-user': { key: aggregate, evict: invalidateMachineUser },
  'member-principal': { key: (e) => (e.payload as { userId: string }).userId, evict: invalidatePrincipal },
  instance: { key: aggregate, evict: invalidateInstance },
  'instance-settings': { key: aggregate, evict: invalidateInstanceSettings },
  'org-users': { key: aggregate, evict: invalidateOrgUsers },
  'login-policy': { key: aggregate, evict: invalidateLoginPolicy },
};

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
        const k = key(e);
        if (done.has(`${effect}\u0000${k}`)) continue;
        done.add(`${effect}\u0000${k}`);
        await evict(work, k);
      }
    }
  },
  afterCommit() {},
};
