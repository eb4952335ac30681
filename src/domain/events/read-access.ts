import type { Principal } from '../../authz/principal';
import { permissionDenied } from '../errors';

/** The lists of event and aggregate types need `events.read` on the instance. */
export function requireEventsRead(principal: Principal, doing: string): void {
  if (!principal.canInstance('events.read')) throw permissionDenied(`${doing} needs the events.read permission`);
}

/**
 * Reading the event store needs `events.read` on the instance, or on the one organization the search is
 * limited to (its resource owner): an organization's owner reads what happened in their organization, and
 * nothing of the instance or of another organization.
 */
export function requireEventSearch(principal: Principal, resourceOwner: string | undefined): void {
  if (principal.canInstance('events.read')) return;
  if (resourceOwner && principal.canOrg('events.read', resourceOwner)) return;
  throw permissionDenied(
    'searching events needs the events.read permission on the instance, or on the organization named as resource owner',
  );
}
