import { describe, expect, it } from 'vitest';
import {
  checkLoginPolicy,
  DEFAULT_LOGIN_POLICY,
  type LoginPolicy,
  mfaForced,
  mfaForcedAfterExternalLogin,
  passkeyIsFirstFactor,
  passwordIsFirstFactor,
} from '../../src/domain/policy/login-policy';
import { stricterPolicy, withInstanceFloor } from '../../src/domain/policy/stricter-policy';

const policy = (over: Partial<LoginPolicy>): LoginPolicy => checkLoginPolicy({ ...DEFAULT_LOGIN_POLICY, ...over });

/** A spread of valid policies: every first-factor mode, MFA forcing, narrow factor lists, lifetimes. */
const SAMPLES: LoginPolicy[] = [
  policy({}),
  policy({ forceMfa: true, mfaInitSkipLifetimeSeconds: 0 }),
  policy({ forceMfaLocalOnly: true, secondFactors: ['TOTP'] }),
  policy({ passwordless: 'REQUIRED', allowExternalIdp: false }),
  policy({ allowUsernamePassword: false, passwordCheckLifetimeSeconds: 0 }),
  policy({ passwordless: 'NOT_ALLOWED', multiFactors: [], secondFactors: ['OTP_SMS'], forceMfa: true }),
  policy({ passwordless: 'NOT_ALLOWED', multiFactors: [], secondFactors: [] }),
  policy({ secondFactors: [], forceMfa: true, multiFactorCheckLifetimeSeconds: 60 }),
  policy({ secondFactorCheckLifetimeSeconds: 0, mfaInitSkipLifetimeSeconds: 3600 }),
];

describe('stricterPolicy: the stricter of two login policies, field by field', () => {
  it('is a valid policy no weaker than either, for every pair', () => {
    for (const a of SAMPLES)
      for (const b of SAMPLES) {
        const m = stricterPolicy(a, b);
        expect(() => checkLoginPolicy(m)).not.toThrow();
        expect(mfaForced(m)).toBe(mfaForced(a) || mfaForced(b));
        expect(mfaForcedAfterExternalLogin(m)).toBe(a.forceMfa || b.forceMfa);
        if (passwordIsFirstFactor(m)) expect(passwordIsFirstFactor(a) && passwordIsFirstFactor(b)).toBe(true);
        // a user keeps a first factor: passkeys when the two share none
        expect(passwordIsFirstFactor(m) || passkeyIsFirstFactor(m)).toBe(true);
        expect(m.allowExternalIdp).toBe(a.allowExternalIdp && b.allowExternalIdp);
        for (const key of [
          'passwordCheckLifetimeSeconds',
          'secondFactorCheckLifetimeSeconds',
          'multiFactorCheckLifetimeSeconds',
        ] as const) {
          const limits = [a[key], b[key]].filter((v) => v > 0);
          expect(m[key]).toBe(limits.length ? Math.min(...limits) : 0);
        }
        const skip = a.mfaInitSkipLifetimeSeconds === 0 || b.mfaInitSkipLifetimeSeconds === 0;
        expect(m.mfaInitSkipLifetimeSeconds).toBe(
          skip ? 0 : Math.min(a.mfaInitSkipLifetimeSeconds, b.mfaInitSkipLifetimeSeconds),
        );
      }
  });

  it('allows only the second factors both allow; a forced MFA with none in common keeps a forcing list', () => {
    const totp = policy({ secondFactors: ['TOTP', 'OTP_EMAIL'] });
    const sms = policy({ secondFactors: ['OTP_SMS', 'OTP_EMAIL'] });
    expect(stricterPolicy(totp, sms).secondFactors).toEqual(['OTP_EMAIL']);
    const none = policy({ passwordless: 'NOT_ALLOWED', multiFactors: [], secondFactors: [] });
    const forced = policy({ passwordless: 'NOT_ALLOWED', multiFactors: [], secondFactors: ['TOTP'], forceMfa: true });
    expect(stricterPolicy(none, forced)).toMatchObject({ forceMfa: true, secondFactors: ['TOTP'], multiFactors: [] });
  });

  it('passkeys only in one and passwords only in the other: passkeys only', () => {
    const passkeys = policy({ passwordless: 'REQUIRED' });
    const passwords = policy({ passwordless: 'NOT_ALLOWED', multiFactors: [] });
    expect(stricterPolicy(passwords, passkeys)).toMatchObject({
      passwordless: 'REQUIRED',
      multiFactors: ['U2F_WITH_VERIFICATION'],
    });
  });
});

describe('withInstanceFloor: an organization policy cannot loosen what the instance forces', () => {
  const instance = policy({ forceMfa: true, mfaInitSkipLifetimeSeconds: 0, passwordCheckLifetimeSeconds: 60 });

  it('keeps forced MFA and its skip period; the rest stays the organization choice', () => {
    const org = policy({ secondFactors: ['TOTP'], passwordCheckLifetimeSeconds: 0, allowExternalIdp: false });
    expect(withInstanceFloor(instance, org)).toEqual({ ...org, forceMfa: true, mfaInitSkipLifetimeSeconds: 0 });
    // tightening is the organization's to do
    const stricter = policy({ forceMfa: true, passwordless: 'REQUIRED', mfaInitSkipLifetimeSeconds: 0 });
    expect(withInstanceFloor(policy({}), stricter)).toEqual(stricter);
  });

  it('passkeys only on the instance: passkeys only in the organization; forced MFA keeps a factor', () => {
    const passkeys = policy({ passwordless: 'REQUIRED' });
    const org = policy({ passwordless: 'NOT_ALLOWED', multiFactors: [] });
    expect(withInstanceFloor(passkeys, org)).toMatchObject({
      passwordless: 'REQUIRED',
      multiFactors: ['U2F_WITH_VERIFICATION'],
    });
    const empty = policy({ passwordless: 'NOT_ALLOWED', multiFactors: [], secondFactors: [] });
    const floored = withInstanceFloor(instance, empty);
    expect(() => checkLoginPolicy(floored)).not.toThrow();
    expect(floored.secondFactors).toEqual(instance.secondFactors);
  });

  it('an instance forcing nothing leaves the organization policy as it is', () => {
    for (const org of SAMPLES) expect(withInstanceFloor(policy({}), org)).toEqual(org);
  });
});
