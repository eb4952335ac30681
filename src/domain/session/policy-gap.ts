import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { recoveryCodes, userFactors, users } from '../../db/schema/index';
import { ACR_1FA, ACR_MFA, acrRequiresMfa } from '../policy/acr';
import {
  type LoginPolicy,
  mfaForced,
  mfaForcedAfterExternalLogin,
  passkeyIsFirstFactor,
  passwordIsFirstFactor,
} from '../policy/login-policy';
import { userLoginPolicy } from '../policy/user-login-policy';
import {
  factorOfRow,
  policyAllows,
  SECOND_FACTOR_NAMES,
  type SecondFactor,
  SETUP,
  type SetupChoice,
} from '../sign-in/factors';
import type { FactorChecks } from './factors';
import type { Source } from '../context';

/** A second factor the user can prove now (the session's factor names). */
export type SecondFactorChoice = SecondFactor;
/** A factor the user can set up when the policy asks for one they do not have. */
export type { SetupChoice };

/**
 * What a session still misses before it may answer an auth request under the login policy:
 * - `none`: nothing; `acr` is what it reached;
 * - `first-factor`: a fresh first factor (`expired`: the password / passkey check is older than its
 *   lifetime; `max-age`: older than the request's max_age; `passkey-required`: the policy accepts
 *   no password as first factor; `missing`: no first factor at all);
 * - `second-factor`: a check of one of `factors` (the user's ready factors the policy allows);
 * - `factor-setup`: the policy (or acr_values) needs a second factor the user does not have: one of
 *   `factors` is to be set up, or, when `skippable`, skipped for a while.
 */
export type PolicyGap =
  | { missing: 'none'; acr: string }
  | { missing: 'first-factor'; reason: 'expired' | 'max-age' | 'passkey-required' | 'missing' }
  | { missing: 'second-factor'; factors: SecondFactorChoice[] }
  | { missing: 'factor-setup'; factors: SetupChoice[]; skippable: boolean };

/** A ready factor of the user, as the rule reads it. */
export interface ReadyFactor {
  /** totp | webauthn | otp_email | otp_sms */
  type: string;
  /** WebAuthn: a passkey (user verification) rather than a security key */
  passwordless: boolean;
}

export interface GapInput {
  session: { passwordCheckedAt: Date | null; factorChecks?: FactorChecks | null };
  factors: readonly ReadyFactor[];
  hasRecoveryCodes: boolean;
  mfaInitSkippedAt: Date | null;
  policy: LoginPolicy;
  request?: { maxAge: number | null; acrValues?: readonly string[] | null; createdAt?: Date } | null;
  now?: number;
}

const within = (at: number | undefined, lifetimeSeconds: number, now: number): at is number =>
  at !== undefined && !Number.isNaN(at) && (lifetimeSeconds === 0 || now - at <= lifetimeSeconds * 1000);

/**
 * The one rule for "what does this session still need": first factor within its lifetime and
 * max_age; then a second factor when the policy forces MFA, when acr_values ask for it, or when the
 * user has one (who set up TOTP expects to be asked for it); `forceMfaLocalOnly` spares a user whose
 * only first factor is a sign-in at an external identity provider. A passkey that verified the user is both
 * factors. Recovery codes count as a second factor whatever the policy lists.
 */
export function policyGap(input: GapInput): PolicyGap {
  const { session, policy } = input;
  const now = input.now ?? Date.now();
  const checks = session.factorChecks ?? {};
  const passwordAt = session.passwordCheckedAt?.getTime();
  const passkey = checks.webAuthN?.userVerified ? Date.parse(checks.webAuthN.at) : undefined;

  const firstTimes: number[] = [];
  if (passwordIsFirstFactor(policy) && within(passwordAt, policy.passwordCheckLifetimeSeconds, now))
    firstTimes.push(passwordAt);
  const passkeyValid = passkeyIsFirstFactor(policy) && within(passkey, policy.multiFactorCheckLifetimeSeconds, now);
  if (passkeyValid) firstTimes.push(passkey as number);
  const localFirstFactor = firstTimes.length > 0;
  // A sign-in at an external identity provider is a first factor for as long as a password check is.
  const externalAt = checks.idpIntent ? Date.parse(checks.idpIntent.at) : undefined;
  if (policy.allowExternalIdp && within(externalAt, policy.passwordCheckLifetimeSeconds, now))
    firstTimes.push(externalAt);
  if (firstTimes.length === 0) {
    if (passwordAt === undefined && passkey === undefined && externalAt === undefined)
      return { missing: 'first-factor', reason: 'missing' };
    if (passkey === undefined && !passwordIsFirstFactor(policy))
      return { missing: 'first-factor', reason: 'passkey-required' };
    return { missing: 'first-factor', reason: 'expired' };
  }
  // A sign-in during the request satisfies max_age whatever its value (max_age=0 asks for exactly that);
  // a minute of slack as the request's time comes from the database clock.
  const maxAge = input.request?.maxAge;
  const latest = Math.max(...firstTimes);
  const duringRequest = !!input.request?.createdAt && latest >= input.request.createdAt.getTime() - 60_000;
  if (maxAge !== null && maxAge !== undefined && !duringRequest && now - latest > maxAge * 1000)
    return { missing: 'first-factor', reason: 'max-age' };

  const allows = (f: SecondFactorChoice, userVerified = false) => policyAllows(policy, f, userVerified);
  const secondChecked = SECOND_FACTOR_NAMES.some((f) => {
    const check = checks[f];
    return (
      !!check &&
      allows(f, check.userVerified) &&
      within(Date.parse(check.at), policy.secondFactorCheckLifetimeSeconds, now)
    );
  });
  const mfaDone = secondChecked || (passkeyValid && policy.multiFactors.includes('U2F_WITH_VERIFICATION'));
  if (mfaDone) return { missing: 'none', acr: ACR_MFA };

  const usable = new Set<SecondFactorChoice>();
  for (const f of input.factors) {
    const choice = factorOfRow(f.type);
    if (choice && allows(choice, f.passwordless)) usable.add(choice);
  }
  const hasSecondFactor = usable.size > 0;
  if (input.hasRecoveryCodes) usable.add('recoveryCode');
  const askedByClient = acrRequiresMfa(input.request?.acrValues);
  const forced = localFirstFactor ? mfaForced(policy) : mfaForcedAfterExternalLogin(policy);
  if (!forced && !hasSecondFactor && !askedByClient) return { missing: 'none', acr: ACR_1FA };
  if (usable.size > 0) return { missing: 'second-factor', factors: [...usable] };

  const skip = policy.mfaInitSkipLifetimeSeconds;
  if (!askedByClient && skip > 0 && within(input.mfaInitSkippedAt?.getTime(), skip, now))
    return { missing: 'none', acr: ACR_1FA };
  return { missing: 'factor-setup', factors: setupChoices(policy), skippable: !askedByClient && skip > 0 };
}

/** The factors the policy lets a user set up, in the order the login offers them. */
export function setupChoices(policy: LoginPolicy): SetupChoice[] {
  return (Object.keys(SETUP) as SetupChoice[]).filter((choice) => {
    const type = SETUP[choice].policy;
    return policy.secondFactors.includes(type) || (type === 'U2F' && policyAllows(policy, 'webAuthN', true));
  });
}

/** The user's ready factors (TOTP, WebAuthn credentials, email and SMS codes). */
export function readyFactors(db: Db, userId: string): Promise<(ReadyFactor & { id: string })[]> {
  return db
    .select({ id: userFactors.id, type: userFactors.type, passwordless: userFactors.passwordless })
    .from(userFactors)
    .where(and(eq(userFactors.userId, userId), eq(userFactors.state, 'ready')));
}

/** Whether the user has an unused recovery code. */
export async function hasRecoveryCodes(db: Db, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: recoveryCodes.id })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)))
    .limit(1);
  return !!row;
}

/** What the rule reads of the session's user. */
export interface GapUser {
  id: string;
  orgId: string;
  mfaInitSkippedAt: Date | null;
}

/**
 * What a session is missing, read from the database: its user's factors and the policy the user is
 * held to (`userLoginPolicy`). A caller that has just read the user in this request (`known`) spares
 * the lookup.
 */
export async function sessionPolicyGap(
  src: Source,
  instanceId: string,
  session: { userId: string | null; passwordCheckedAt: Date | null; factorChecks?: FactorChecks | null },
  request?: GapInput['request'],
  known?: GapUser,
): Promise<PolicyGap> {
  if (!session.userId) return { missing: 'first-factor', reason: 'missing' };
  const { db } = src;
  const [user] =
    known?.id === session.userId
      ? [known]
      : await db
          .select({ orgId: users.orgId, mfaInitSkippedAt: users.mfaInitSkippedAt })
          .from(users)
          .where(eq(users.id, session.userId));
  if (!user) return { missing: 'first-factor', reason: 'missing' };
  const [policy, factors, recovery] = await Promise.all([
    userLoginPolicy(src, instanceId, { id: session.userId, orgId: user.orgId }),
    readyFactors(db, session.userId),
    hasRecoveryCodes(db, session.userId),
  ]);
  return policyGap({
    session,
    factors,
    hasRecoveryCodes: recovery,
    mfaInitSkippedAt: user.mfaInitSkippedAt,
    policy,
    request,
  });
}
