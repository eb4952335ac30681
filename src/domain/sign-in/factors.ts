import type { FactorChecks, SessionFactor } from '../../db/schema/index';
import type { LoginPolicy, MultiFactorType, SecondFactorType } from '../policy/login-policy';

/** One factor's check as a session records it (ISO time, and what the check proved). */
export type FactorCheck = NonNullable<FactorChecks[SessionFactor]>;

/**
 * One sign-in factor, declared once. Every name a factor has elsewhere — its event, its amr values, its
 * user_factors type, its login policy type, its API field, its lockout counter, its login pages — is
 * read from here, so a new factor is one entry (plus its check module), and a missing name is a
 * compile error rather than a table someone forgot.
 */
interface FactorDeclaration {
  /** the event a successful check appends to the session */
  event: `session.${string}.checked`;
  /** a first factor signs the user in; a second factor (possession) adds to one */
  role: 'first' | 'second';
  /** RFC 8176 authentication method references the check adds to the session's `amr` */
  amr: (check: FactorCheck) => string[];
  /** a check that is two factors on its own (a passkey that verified the user): `mfa` without another */
  alone?: (check: FactorCheck) => boolean;
  /** the session API's field that carries the check (`checks.<name>`) */
  field: string;
  /** a second factor: the row type in user_factors (recovery codes have their own table) */
  row?: string;
  /** a second factor the login policy lists (`secondFactors`); without it the factor is always allowed */
  policy?: SecondFactorType;
  /** the policy's multi-factor (`multiFactors`) that a check verifying the user satisfies */
  multi?: MultiFactorType;
  /** a code the user types: the name its failures count under (failed_otp_attempts, event payload) */
  lockout?: string;
  /** a factor whose check answers a challenge the session opened first */
  challenge?: boolean;
  /** the hosted login's page that checks the factor, under /ui/login/ */
  checkPath?: string;
}

const declare = <T extends Record<SessionFactor, FactorDeclaration>>(factors: T) => factors;

/**
 * The factors a session can record, by the session's name for them (the jsonb keys of
 * `sessions.factor_checks`). A passkey and a security key are both `webAuthN`: the check records
 * whether the authenticator verified the user, and the amr follows. An LDAP bind and an OIDC, OAuth or
 * SAML sign-in upstream are both `idpIntent` (the provider decides, see src/domain/idp/).
 */
export const FACTORS = declare({
  password: {
    event: 'session.password.checked',
    role: 'first',
    amr: () => ['pwd'],
    field: 'checks.password',
  },
  totp: {
    event: 'session.totp.checked',
    role: 'second',
    amr: () => ['otp'],
    field: 'checks.totp',
    row: 'totp',
    policy: 'TOTP',
    lockout: 'totp',
    checkPath: 'totp',
  },
  otpEmail: {
    event: 'session.otp_email.checked',
    role: 'second',
    amr: () => ['otp'],
    field: 'checks.otp_email',
    row: 'otp_email',
    policy: 'OTP_EMAIL',
    lockout: 'otp_email',
    challenge: true,
    checkPath: 'otp-email',
  },
  otpSms: {
    event: 'session.otp_sms.checked',
    role: 'second',
    amr: () => ['otp', 'sms'],
    field: 'checks.otp_sms',
    row: 'otp_sms',
    policy: 'OTP_SMS',
    lockout: 'otp_sms',
    challenge: true,
    checkPath: 'otp-sms',
  },
  recoveryCode: {
    event: 'session.recovery_code.checked',
    role: 'second',
    amr: () => ['otp'],
    field: 'checks.recovery_code',
    lockout: 'recovery_code',
    checkPath: 'recovery',
  },
  webAuthN: {
    event: 'session.webauthn.checked',
    role: 'second',
    // a synced passkey is a software key; one that verified the user (PIN, biometrics) is two factors
    amr: (c) => [c.synced ? 'swk' : 'hwk', ...(c.userVerified ? ['user'] : [])],
    alone: (c) => !!c.userVerified,
    field: 'checks.web_auth_n',
    row: 'webauthn',
    policy: 'U2F',
    multi: 'U2F_WITH_VERIFICATION',
    challenge: true,
    checkPath: 'webauthn',
  },
  idpIntent: {
    event: 'session.idp_intent.checked',
    role: 'first',
    amr: () => ['fed'],
    field: 'checks.idp_intent',
  },
} as const);

export type { SessionFactor };
type Factors = typeof FACTORS;
type Where<K extends keyof FactorDeclaration, V = unknown> = {
  [F in SessionFactor]: Factors[F] extends Record<K, V> ? F : never;
}[SessionFactor];

/** The factors a user adds to a first one (the session's names). */
export type SecondFactor = Where<'role', 'second'>;
/** The second factors the user keeps as a user_factors row. */
export type RowFactor = Where<'row'>;
/** The factors whose check answers a challenge the session opened. */
export type ChallengeFactor = Where<'challenge', true>;
/** The factors typed as a code, counted by the second-factor lockout. */
export type CodeFactor = Where<'lockout'>;
/** The lockout names of the code factors (`failed_otp_attempts`, `user.human.otp.check.failed`). */
export type LockoutName = Factors[CodeFactor]['lockout'];

export const SESSION_FACTORS = Object.keys(FACTORS) as SessionFactor[];
export const SECOND_FACTOR_NAMES = SESSION_FACTORS.filter((f): f is SecondFactor => FACTORS[f].role === 'second');
/** The factor a user_factors row is (undefined for a type the sign-in does not know). */
export const factorOfRow = (type: string): RowFactor | undefined =>
  SESSION_FACTORS.find((f): f is RowFactor => (FACTORS[f] as FactorDeclaration).row === type);

/**
 * The factors a user can set up from the login when the policy asks for one they lack, in the order
 * the login offers them: the policy's factor of each kind (`passkey` is a WebAuthn credential, offered
 * also when the policy takes passkeys as multi-factors), with the set-up page of each.
 */
export const SETUP = {
  totp: { policy: 'TOTP', path: 'setup-totp' },
  passkey: { policy: 'U2F', path: 'setup-passkey' },
  otpEmail: { policy: 'OTP_EMAIL', path: 'setup-otp-email' },
  otpSms: { policy: 'OTP_SMS', path: 'setup-otp-sms' },
} as const satisfies Record<string, { policy: SecondFactorType; path: string }>;
export type SetupChoice = keyof typeof SETUP;

/**
 * Whether the policy accepts a check of this second factor: the policy lists it, or it needs no listing
 * (recovery codes, the fallback), or it verified the user and the policy takes that multi-factor.
 */
export function policyAllows(policy: LoginPolicy, factor: SecondFactor, userVerified = false): boolean {
  const f: FactorDeclaration = FACTORS[factor];
  if (!f.policy) return true;
  return (
    policy.secondFactors.includes(f.policy) || (userVerified && !!f.multi && policy.multiFactors.includes(f.multi))
  );
}

/** The session's `amr` (RFC 8176) from its checks: each factor's values, and `mfa` for two kinds of factor. */
export function amrOf(checks: FactorChecks): string[] {
  const amr = new Set<string>();
  let first = false;
  let second = false;
  let alone = false;
  for (const name of SESSION_FACTORS) {
    const check = checks[name];
    if (!check) continue;
    const f: FactorDeclaration = FACTORS[name];
    for (const value of f.amr(check)) amr.add(value);
    if (f.role === 'first') first = true;
    else second = true;
    if (f.alone?.(check)) alone = true;
  }
  if ((first && second) || alone) amr.add('mfa');
  return [...amr];
}

/**
 * Whether the checks hold a first factor (or a check that is two factors on its own, a passkey that
 * verified the user) made for the hosted login's auth request `authRequestId`.
 */
export function signedInFor(checks: FactorChecks | null | undefined, authRequestId: string): boolean {
  return SESSION_FACTORS.some((name) => {
    const check = checks?.[name];
    const f: FactorDeclaration = FACTORS[name];
    return check?.authRequest === authRequestId && (f.role === 'first' || !!f.alone?.(check));
  });
}
