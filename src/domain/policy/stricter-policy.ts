import {
  type LoginPolicy,
  mfaForced,
  passkeyIsFirstFactor,
  passwordIsFirstFactor,
  type PasswordlessMode,
} from './login-policy';

/**
 * How login policies combine when more than one applies to a user. Two rules, both here:
 * - `withInstanceFloor`: an organization's own policy may tighten, never loosen, what the instance's
 *   policy forces (MFA, MFA for local sign-ins, passkeys as the only first factor, and with forced
 *   MFA the skip period of its set-up); every user of the organization is held to it.
 * - `stricterPolicy`: a user whose memberships reach beyond their organization (the instance, other
 *   organizations or their projects) is held to the stricter of every policy that applies, field by
 *   field; an organization owner cannot lower the sign-in of an administrator who lives there.
 */

/** Check lifetimes: the shorter; 0 means no limit, so it is the longest. */
const shorterLifetime = (a: number, b: number) => (a === 0 ? b : b === 0 ? a : Math.min(a, b));

/** The MFA set-up's skip period: 0 (the set-up cannot be skipped) is the strictest, else the shorter. */
const shorterSkip = (a: number, b: number) => (a === 0 || b === 0 ? 0 : Math.min(a, b));

const both = <T>(a: readonly T[], b: readonly T[]): T[] => a.filter((x) => b.includes(x));

/**
 * First factors both policies accept. When they share none (one accepts passkeys only, the other
 * passwords only), passkeys win: they are the stronger factor, and a user must keep a way in.
 */
function stricterFirstFactor(a: LoginPolicy, b: LoginPolicy): PasswordlessMode {
  if (!passwordIsFirstFactor(a) || !passwordIsFirstFactor(b)) return 'REQUIRED';
  return passkeyIsFirstFactor(a) && passkeyIsFirstFactor(b) ? 'ALLOWED' : 'NOT_ALLOWED';
}

/**
 * Keeps what `checkLoginPolicy` asks of every stored policy true of a combined one: a policy that
 * lets passkeys be a first factor counts a user-verifying passkey as both factors, and a policy that
 * forces MFA leaves a factor to use (else the lists of `forcing`, a policy that forces MFA itself).
 */
function keepUsable(p: LoginPolicy, forcing: readonly LoginPolicy[]): LoginPolicy {
  let out = p;
  if (mfaForced(out) && out.secondFactors.length === 0 && out.multiFactors.length === 0) {
    const from = forcing.find((f) => mfaForced(f) && (f.secondFactors.length > 0 || f.multiFactors.length > 0));
    if (from) out = { ...out, secondFactors: [...from.secondFactors], multiFactors: [...from.multiFactors] };
  }
  if (out.passwordless !== 'NOT_ALLOWED' && !out.multiFactors.includes('U2F_WITH_VERIFICATION'))
    out = { ...out, multiFactors: [...out.multiFactors, 'U2F_WITH_VERIFICATION'] };
  return out;
}

/**
 * A policy no weaker than either: MFA forced when either forces it (for every sign-in when either
 * forces it so); only first factors both accept (passkeys when they share none); external
 * providers only when both allow them; only the second factors and multi-factors both allow; each
 * check lifetime the shorter; the set-up's skip period the shorter (none when either allows none).
 */
export function stricterPolicy(a: LoginPolicy, b: LoginPolicy): LoginPolicy {
  const merged: LoginPolicy = {
    allowUsernamePassword: a.allowUsernamePassword && b.allowUsernamePassword,
    passwordless: stricterFirstFactor(a, b),
    forceMfa: a.forceMfa || b.forceMfa,
    forceMfaLocalOnly: a.forceMfaLocalOnly || b.forceMfaLocalOnly,
    allowExternalIdp: a.allowExternalIdp && b.allowExternalIdp,
    secondFactors: both(a.secondFactors, b.secondFactors),
    multiFactors: both(a.multiFactors, b.multiFactors),
    passwordCheckLifetimeSeconds: shorterLifetime(a.passwordCheckLifetimeSeconds, b.passwordCheckLifetimeSeconds),
    secondFactorCheckLifetimeSeconds: shorterLifetime(
      a.secondFactorCheckLifetimeSeconds,
      b.secondFactorCheckLifetimeSeconds,
    ),
    multiFactorCheckLifetimeSeconds: shorterLifetime(
      a.multiFactorCheckLifetimeSeconds,
      b.multiFactorCheckLifetimeSeconds,
    ),
    mfaInitSkipLifetimeSeconds: shorterSkip(a.mfaInitSkipLifetimeSeconds, b.mfaInitSkipLifetimeSeconds),
  };
  return keepUsable(merged, [a, b]);
}

/**
 * An organization's own policy under what the instance's forces. The rest (which factors, lifetimes,
 * external providers) stays the organization's to choose for its own users.
 */
export function withInstanceFloor(instance: LoginPolicy, org: LoginPolicy): LoginPolicy {
  const floored: LoginPolicy = {
    ...org,
    forceMfa: org.forceMfa || instance.forceMfa,
    forceMfaLocalOnly: org.forceMfaLocalOnly || instance.forceMfaLocalOnly,
    passwordless: passwordIsFirstFactor(instance) ? org.passwordless : 'REQUIRED',
    mfaInitSkipLifetimeSeconds: mfaForced(instance)
      ? shorterSkip(org.mfaInitSkipLifetimeSeconds, instance.mfaInitSkipLifetimeSeconds)
      : org.mfaInitSkipLifetimeSeconds,
  };
  return keepUsable(floored, [org, instance]);
}
