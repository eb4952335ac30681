import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { DEFAULT_INSTANCE_SETTINGS, type InstanceSettings, instances } from '../../db/schema/index';
import { defineCache, invalidateAfterCommit } from '../cache';
import type { Source } from '../context';
import { invalidArgument } from '../errors';
import type { UnitOfWork } from '../execute';
import { isCommonPassword } from '../user/common-passwords';
import { checkDynamicRegistrationSettings } from './dynamic-registration';

export type { InstanceSettings };

const cache = defineCache<InstanceSettings>('instance-settings', { max: 16 });

/**
 * The instance's settings as the OIDC layer and the login read them, from the server's cache that
 * UpdateInstanceSettings invalidates in every replica on commit.
 */
export function getInstanceSettings(src: Source, instanceId: string): Promise<InstanceSettings> {
  return src.runtime.get(cache).get(instanceId, () => readInstanceSettings(src.db, instanceId));
}

/** Evicts the cached settings once the command's transaction commits. */
export function invalidateInstanceSettings(work: UnitOfWork, instanceId: string): Promise<void> {
  return invalidateAfterCommit(work, 'instance-settings', instanceId);
}

/**
 * The stored settings over the defaults (so a setting added later has its default on instances
 * created before it), read in the caller's transaction.
 */
export async function readInstanceSettings(db: Db, instanceId: string): Promise<InstanceSettings> {
  const [row] = await db.select({ settings: instances.settings }).from(instances).where(eq(instances.id, instanceId));
  return { ...DEFAULT_INSTANCE_SETTINGS, ...(row?.settings ?? {}) };
}

const DAY = 24 * 3600;
/** Highest rate limit: a load test from one address raises the limits this far instead of turning them off. */
const RATE_LIMIT_MAX = 1_000_000_000;
/** Allowed ranges of the numeric settings, [min, max]. */
const RANGES: Partial<Record<keyof InstanceSettings, [number, number]>> = {
  accessTokenLifetimeSeconds: [60, 7 * DAY],
  idTokenLifetimeSeconds: [60, 7 * DAY],
  refreshTokenIdleSeconds: [60, 365 * DAY],
  refreshTokenAbsoluteSeconds: [60, 365 * DAY],
  passwordMinLength: [1, 72],
  lockoutMaxPasswordAttempts: [0, 100],
  lockoutMaxOtpAttempts: [0, 100],
  rateLimitWindowSeconds: [1, 3600],
  tokenRateLimitPerClient: [0, RATE_LIMIT_MAX],
  tokenRateLimitPerAddress: [0, RATE_LIMIT_MAX],
  loginRateLimitPerAddress: [0, RATE_LIMIT_MAX],
  keysRateLimitPerAddress: [0, RATE_LIMIT_MAX],
  dynamicRegistrationUnusedClientLifetimeSeconds: [0, 365 * DAY],
};

const SNAKE = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Checks a merged settings object; errors name the API field. */
export function checkSettings(s: InstanceSettings): void {
  for (const [key, [min, max]] of Object.entries(RANGES) as [keyof InstanceSettings, [number, number]][]) {
    const v = s[key] as number;
    if (!Number.isInteger(v) || v < min || v > max) {
      throw invalidArgument('Errors.Instance.Settings.Invalid', `${SNAKE(key)} must be between ${min} and ${max}`);
    }
  }
  if (s.refreshTokenAbsoluteSeconds < s.refreshTokenIdleSeconds) {
    throw invalidArgument(
      'Errors.Instance.Settings.Invalid',
      'refresh_token_absolute_seconds must not be less than refresh_token_idle_seconds',
    );
  }
  if (!['RS256', 'ES256', 'EdDSA'].includes(s.signingAlgorithm)) {
    throw invalidArgument('Errors.Instance.Settings.Invalid', 'signing_algorithm must be RS256, ES256 or EdDSA');
  }
  checkDynamicRegistrationSettings(s);
}

/**
 * Checks a new password against the instance's complexity policy; the error names the rule it breaks.
 * Only passwords chosen here: an imported hash or an imported plain password is kept as it was.
 */
export function checkPasswordPolicy(s: InstanceSettings, password: string, field = 'password'): void {
  const missing: string[] = [];
  if (password.length < s.passwordMinLength) missing.push(`at least ${s.passwordMinLength} characters`);
  if (s.passwordRequireUppercase && !/[A-Z]/.test(password)) missing.push('an upper-case letter');
  if (s.passwordRequireLowercase && !/[a-z]/.test(password)) missing.push('a lower-case letter');
  if (s.passwordRequireNumber && !/[0-9]/.test(password)) missing.push('a digit');
  if (s.passwordRequireSymbol && !/[^A-Za-z0-9]/.test(password)) missing.push('a symbol');
  if (missing.length) throw invalidArgument('Errors.User.PasswordComplexity', `${field} needs ${missing.join(', ')}`);
  // Checked last: the list is loaded on the first check, and a guesser tries these first.
  if (s.passwordBlockCommon && isCommonPassword(password))
    throw invalidArgument('Errors.User.PasswordCommon', `${field} is one of the most commonly used passwords`);
}
