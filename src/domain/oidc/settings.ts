import type { InstanceSettings } from '../../db/schema/index';
import type { Source } from '../context';
import { getInstanceSettings } from '../instance/settings';

/**
 * The instance settings the OIDC layer reads on every token (lifetimes, lockout, signing algorithm),
 * from the instance area's cache that UpdateInstanceSettings invalidates in every replica.
 */
export function instanceSettings(src: Source, instanceId: string): Promise<InstanceSettings> {
  return getInstanceSettings(src, instanceId);
}

/** Longest time a token signed now can stay valid: the key that signed it must stay published that long. */
export function longestTokenLifetimeMs(s: InstanceSettings): number {
  return Math.max(s.accessTokenLifetimeSeconds, s.idTokenLifetimeSeconds) * 1000;
}
