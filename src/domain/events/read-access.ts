import type { Principal } from '../../authz/principal';
import { permissionDenied } from '../errors';

/** Reading the event store, and the lists of its event and aggregate types, needs `events.read` on the instance. */
export function requireEventsRead(principal: Principal, doing: string): void {
  if (!principal.canInstance('events.read')) throw permissionDenied(`${doing} needs the events.read permission`);
}
