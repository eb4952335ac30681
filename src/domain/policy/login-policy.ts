import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instances, orgs } from '../../db/schema/index';
import { defineCache, invalidateAfterCommit } from '../cache';
import type { Source } from '../context';
import { invalidArgument } from '../errors';
import type { UnitOfWork } from '../execute';

/** Second factors a policy may allow (recovery codes are always allowed as a fallback). */
export const SECOND_FACTORS = ['TOTP', 'U2F', 'OTP_EMAIL', 'OTP_SMS'] as const;
export type SecondFactorType = (typeof SECOND_FACTORS)[number];

/** Multi-factors: one factor that is two at once; a passkey that verified the user (PIN, biometrics). */
export const MULTI_FACTORS = ['U2F_WITH_VERIFICATION'] as const;
export type MultiFactorType = (typeof MULTI_FACTORS)[number];

export const PASSWORDLESS = ['NOT_ALLOWED', 'ALLOWED', 'REQUIRED'] as const;
export type PasswordlessMode = (typeof PASSWORDLESS)[number];

/**
 * How users of the instance (or of one organization) must sign in. The instance's policy is the
 * default; an organization may set its own, which tightens but never loosens what the instance's
 * forces; a user who administers more than their organization is held to the stricter of the
 * policies that apply (src/domain/policy/stricter-policy.ts, user-login-policy.ts).
 */
export interface LoginPolicy {
  /** a password is a first factor */
  allowUsernamePassword: boolean;
  /** passkeys as a first factor: not allowed, allowed, or the only first factor (a password is not enough) */
  passwordless: PasswordlessMode;
  /** every user needs a second factor (or a passkey) */
  forceMfa: boolean;
  /**
   * only users who sign in with a local account need a second factor; a sign-in through an external
   * identity provider is exempt (the provider is trusted to have asked for one)
   */
  forceMfaLocalOnly: boolean;
  /** users may sign in through the external identity providers of the instance and their organization */
  allowExternalIdp: boolean;
  /** second factors users may use and set up after the password */
  secondFactors: SecondFactorType[];
  /** multi-factors (a passkey with user verification) that satisfy MFA on their own */
  multiFactors: MultiFactorType[];
  /** seconds a password check stays valid in a session; 0: no limit */
  passwordCheckLifetimeSeconds: number;
  /** seconds a second-factor check stays valid in a session; 0: no limit */
  secondFactorCheckLifetimeSeconds: number;
  /** seconds a multi-factor (passkey) check stays valid in a session; 0: no limit */
  multiFactorCheckLifetimeSeconds: number;
  /** seconds a user who skipped the MFA set-up is not asked again; 0: the set-up cannot be skipped */
  mfaInitSkipLifetimeSeconds: number;
}

const HOUR = 3600;
const DAY = 24 * HOUR;

export const DEFAULT_LOGIN_POLICY: LoginPolicy = {
  allowUsernamePassword: true,
  passwordless: 'ALLOWED',
  forceMfa: false,
  forceMfaLocalOnly: false,
  allowExternalIdp: true,
  secondFactors: ['TOTP', 'U2F', 'OTP_EMAIL', 'OTP_SMS'],
  multiFactors: ['U2F_WITH_VERIFICATION'],
  passwordCheckLifetimeSeconds: 10 * DAY,
  secondFactorCheckLifetimeSeconds: 18 * HOUR,
  multiFactorCheckLifetimeSeconds: 12 * HOUR,
  mfaInitSkipLifetimeSeconds: 30 * DAY,
};

/** The key of the instance's settings (jsonb) that holds its login policy. */
export const INSTANCE_SETTINGS_KEY = 'loginPolicy';

/** Longest check lifetime and skip period: a year. */
const MAX_LIFETIME = 365 * DAY;

const LIFETIMES = [
  'passwordCheckLifetimeSeconds',
  'secondFactorCheckLifetimeSeconds',
  'multiFactorCheckLifetimeSeconds',
  'mfaInitSkipLifetimeSeconds',
] as const;

const SNAKE = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Whether the policy asks users who sign in locally for a second factor. */
export const mfaForced = (p: LoginPolicy): boolean => p.forceMfa || p.forceMfaLocalOnly;

/** Whether the policy asks a user whose only first factor is an external provider's sign-in for one. */
export const mfaForcedAfterExternalLogin = (p: LoginPolicy): boolean => p.forceMfa;

/** Whether a password alone authenticates the user as a first factor. */
export const passwordIsFirstFactor = (p: LoginPolicy): boolean =>
  p.allowUsernamePassword && p.passwordless !== 'REQUIRED';

/** Whether a passkey that verified the user is a first factor. */
export const passkeyIsFirstFactor = (p: LoginPolicy): boolean => p.passwordless !== 'NOT_ALLOWED';

/**
 * Checks a whole policy; errors are INVALID_ARGUMENT naming the field (in the API's snake case) and
 * say what is wrong. A policy always leaves a way to sign in and, when it forces MFA, a factor to use.
 */
const INVALID = 'Errors.LoginPolicy.Invalid';

export function checkLoginPolicy(p: LoginPolicy, prefix = 'settings.'): LoginPolicy {
  const bad = (field: string, why: string) => invalidArgument(INVALID, `${prefix}${field} ${why}`);
  if (typeof p.allowUsernamePassword !== 'boolean') throw bad('allow_username_password', 'must be true or false');
  if (!PASSWORDLESS.includes(p.passwordless))
    throw bad('passwordless_type', `must be one of ${PASSWORDLESS.join(', ')}`);
  if (typeof p.forceMfa !== 'boolean') throw bad('force_mfa', 'must be true or false');
  if (typeof p.forceMfaLocalOnly !== 'boolean') throw bad('force_mfa_local_only', 'must be true or false');
  if (typeof p.allowExternalIdp !== 'boolean') throw bad('allow_external_idp', 'must be true or false');
  const list = <T extends string>(field: string, values: unknown, allowed: readonly T[]): T[] => {
    if (!Array.isArray(values)) throw bad(field, 'must be a list');
    for (const v of values) if (!allowed.includes(v)) throw bad(field, `must contain only ${allowed.join(', ')}`);
    if (new Set(values).size !== values.length) throw bad(field, 'must not repeat a value');
    return values as T[];
  };
  list('second_factors', p.secondFactors, SECOND_FACTORS);
  list('multi_factors', p.multiFactors, MULTI_FACTORS);
  for (const key of LIFETIMES) {
    const v = p[key];
    if (!Number.isInteger(v) || v < 0 || v > MAX_LIFETIME)
      throw bad(SNAKE(key), `must be between 0 and ${MAX_LIFETIME} seconds (0: no limit)`);
  }
  if (!p.allowUsernamePassword && p.passwordless === 'NOT_ALLOWED')
    throw bad('passwordless_type', 'must allow passkeys while allow_username_password is false');
  if (p.passwordless !== 'NOT_ALLOWED' && !p.multiFactors.includes('U2F_WITH_VERIFICATION'))
    throw bad('multi_factors', 'must contain U2F_WITH_VERIFICATION while passwordless allows passkeys');
  if (mfaForced(p) && p.secondFactors.length === 0 && p.multiFactors.length === 0)
    throw bad('second_factors', 'must not be empty while force_mfa is on (or multi_factors must not be)');
  return p;
}

/** A stored (possibly partial, possibly older) policy over the defaults. */
export function withDefaults(stored: unknown): LoginPolicy {
  const s = stored && typeof stored === 'object' ? (stored as Partial<LoginPolicy>) : {};
  return { ...DEFAULT_LOGIN_POLICY, ...s };
}

/** Cached raw stored policies: the instance's (keyed by instance id) and organizations' overrides (by org id). */
const cache = defineCache<Partial<LoginPolicy> | null>('login-policy', { max: 10_000 });

async function readInstancePolicy(db: Db, instanceId: string): Promise<Partial<LoginPolicy> | null> {
  const [row] = await db.select({ settings: instances.settings }).from(instances).where(eq(instances.id, instanceId));
  const settings = row?.settings as unknown as Record<string, unknown> | undefined;
  return (settings?.[INSTANCE_SETTINGS_KEY] as Partial<LoginPolicy> | undefined) ?? null;
}

async function readOrgPolicy(db: Db, orgId: string): Promise<Partial<LoginPolicy> | null> {
  const [row] = await db.select({ policy: orgs.loginPolicy }).from(orgs).where(eq(orgs.id, orgId));
  return (row?.policy as Partial<LoginPolicy> | null | undefined) ?? null;
}

/** The instance's default login policy (cached). */
export async function getDefaultLoginPolicy(src: Source, instanceId: string): Promise<LoginPolicy> {
  return withDefaults(await src.runtime.get(cache).get(instanceId, () => readInstancePolicy(src.db, instanceId)));
}

/** The instance's default policy read in the caller's transaction (no cache). */
export async function readDefaultLoginPolicy(db: Db, instanceId: string): Promise<LoginPolicy> {
  return withDefaults(await readInstancePolicy(db, instanceId));
}

/** An organization's own policy, or null when it inherits the instance's (cached). */
export async function getOrgLoginPolicy(src: Source, orgId: string): Promise<LoginPolicy | null> {
  const own = await src.runtime.get(cache).get(orgId, () => readOrgPolicy(src.db, orgId));
  return own ? withDefaults(own) : null;
}

export interface EffectiveLoginPolicy {
  policy: LoginPolicy;
  /** the policy is the instance's (the organization has none of its own, or no organization was named) */
  inherited: boolean;
}

/**
 * The policy configured for `orgId` (the instance's when the organization has none), as the settings
 * API shows and edits it. What a user's sign-in must satisfy is `userLoginPolicy`'s answer.
 */
export async function effectiveLoginPolicy(
  src: Source,
  instanceId: string,
  orgId?: string | null,
): Promise<EffectiveLoginPolicy> {
  const own = orgId ? await getOrgLoginPolicy(src, orgId) : null;
  if (own) return { policy: own, inherited: false };
  return { policy: await getDefaultLoginPolicy(src, instanceId), inherited: true };
}

/** Evicts a cached policy (an instance's or an organization's, by its id) once the command commits. */
export function invalidateLoginPolicy(work: UnitOfWork, id: string): Promise<void> {
  return invalidateAfterCommit(work, 'login-policy', id);
}
