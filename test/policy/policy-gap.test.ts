import { describe, expect, it } from 'vitest';
import { DEFAULT_LOGIN_POLICY, type LoginPolicy } from '../../src/domain/policy/login-policy';
import { type GapInput, policyGap } from '../../src/domain/session/policy-gap';

const NOW = Date.parse('2030-01-01T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000);
const iso = (s: number) => ago(s).toISOString();

const gap = (over: Partial<Omit<GapInput, 'policy'>> & { policy?: Partial<LoginPolicy> } = {}) =>
  policyGap({
    session: { passwordCheckedAt: ago(10), factorChecks: { password: { at: iso(10) } } },
    factors: [],
    hasRecoveryCodes: false,
    mfaInitSkippedAt: null,
    now: NOW,
    ...over,
    policy: { ...DEFAULT_LOGIN_POLICY, ...over.policy },
  });

describe('policyGap: what a session still misses', () => {
  it('a password alone is enough without force MFA and without second factors: acr 1fa', () => {
    expect(gap()).toEqual({ missing: 'none', acr: 'urn:portcullis:acr:1fa' });
  });

  it('a user who has TOTP must use it even without force MFA; a checked TOTP is mfa', () => {
    const factors = [{ type: 'totp', passwordless: false }];
    expect(gap({ factors })).toEqual({ missing: 'second-factor', factors: ['totp'] });
    const session = { passwordCheckedAt: ago(10), factorChecks: { totp: { at: iso(5) } } };
    expect(gap({ factors, session })).toEqual({ missing: 'none', acr: 'urn:portcullis:acr:mfa' });
  });

  it('a passkey with user verification is both factors; without it, it is a second factor only', () => {
    const uv = { passwordCheckedAt: null, factorChecks: { webAuthN: { at: iso(5), userVerified: true } } };
    expect(gap({ session: uv, policy: { forceMfa: true } })).toEqual({
      missing: 'none',
      acr: 'urn:portcullis:acr:mfa',
    });
    const key = { passwordCheckedAt: null, factorChecks: { webAuthN: { at: iso(5) } } };
    expect(gap({ session: key })).toEqual({ missing: 'first-factor', reason: 'missing' });
    const both = { passwordCheckedAt: ago(10), factorChecks: { webAuthN: { at: iso(5) } } };
    expect(gap({ session: both, policy: { forceMfa: true } }).missing).toBe('none');
  });

  it('check lifetimes: an old password or second-factor check no longer counts; 0 is no limit', () => {
    expect(gap({ policy: { passwordCheckLifetimeSeconds: 5 } })).toEqual({
      missing: 'first-factor',
      reason: 'expired',
    });
    expect(gap({ policy: { passwordCheckLifetimeSeconds: 0 } }).missing).toBe('none');
    const factors = [{ type: 'totp', passwordless: false }];
    const session = { passwordCheckedAt: ago(10), factorChecks: { totp: { at: iso(100) } } };
    expect(gap({ factors, session, policy: { secondFactorCheckLifetimeSeconds: 50 } }).missing).toBe('second-factor');
    expect(gap({ factors, session, policy: { secondFactorCheckLifetimeSeconds: 0 } }).missing).toBe('none');
    const passkey = { passwordCheckedAt: null, factorChecks: { webAuthN: { at: iso(100), userVerified: true } } };
    expect(gap({ session: passkey, policy: { multiFactorCheckLifetimeSeconds: 50 } }).missing).toBe('first-factor');
  });

  it('max_age: older than it is a fresh first factor, unless the sign-in happened during the request', () => {
    expect(gap({ request: { maxAge: 5 } })).toEqual({ missing: 'first-factor', reason: 'max-age' });
    expect(gap({ request: { maxAge: 60 } }).missing).toBe('none');
    expect(gap({ request: { maxAge: 0, createdAt: ago(20) } }).missing).toBe('none');
  });

  it('passwordless REQUIRED: a password is no first factor; without passkeys allowed one is', () => {
    expect(gap({ policy: { passwordless: 'REQUIRED' } })).toEqual({
      missing: 'first-factor',
      reason: 'passkey-required',
    });
    expect(gap({ policy: { allowUsernamePassword: false } })).toEqual({
      missing: 'first-factor',
      reason: 'passkey-required',
    });
    expect(gap({ session: { passwordCheckedAt: null } })).toEqual({ missing: 'first-factor', reason: 'missing' });
  });

  it('force MFA without factors: the set-up of the allowed factors, skippable unless the skip period is 0', () => {
    expect(gap({ policy: { forceMfa: true } })).toEqual({
      missing: 'factor-setup',
      factors: ['totp', 'passkey', 'otpEmail', 'otpSms'],
      skippable: true,
    });
    expect(
      gap({ policy: { forceMfaLocalOnly: true, secondFactors: ['OTP_SMS'], mfaInitSkipLifetimeSeconds: 0 } }),
    ).toEqual({ missing: 'factor-setup', factors: ['passkey', 'otpSms'], skippable: false });
    // skipped within the period: nothing missing; after it: asked again
    const policy = { forceMfa: true, mfaInitSkipLifetimeSeconds: 3600 };
    expect(gap({ policy, mfaInitSkippedAt: ago(60) })).toEqual({ missing: 'none', acr: 'urn:portcullis:acr:1fa' });
    expect(gap({ policy, mfaInitSkippedAt: ago(7200) }).missing).toBe('factor-setup');
  });

  it('recovery codes are the fallback second factor whatever the policy allows', () => {
    const factors = [{ type: 'totp', passwordless: false }];
    expect(gap({ factors, hasRecoveryCodes: true })).toEqual({
      missing: 'second-factor',
      factors: ['totp', 'recoveryCode'],
    });
    // TOTP not allowed any more, MFA forced: the recovery code only
    expect(gap({ factors, hasRecoveryCodes: true, policy: { forceMfa: true, secondFactors: ['U2F'] } })).toEqual({
      missing: 'second-factor',
      factors: ['recoveryCode'],
    });
    const session = { passwordCheckedAt: ago(10), factorChecks: { recoveryCode: { at: iso(1) } } };
    expect(gap({ factors, session, policy: { forceMfa: true } })).toEqual({
      missing: 'none',
      acr: 'urn:portcullis:acr:mfa',
    });
  });

  it('acr_values asking for mfa only require a second factor and cannot be skipped', () => {
    const mfa = { maxAge: null, acrValues: ['urn:portcullis:acr:mfa'] };
    expect(gap({ request: mfa })).toEqual({
      missing: 'factor-setup',
      factors: ['totp', 'passkey', 'otpEmail', 'otpSms'],
      skippable: false,
    });
    expect(gap({ request: mfa, policy: { forceMfa: true }, mfaInitSkippedAt: ago(1) }).missing).toBe('factor-setup');
    const either = { maxAge: null, acrValues: ['urn:portcullis:acr:1fa', 'urn:portcullis:acr:mfa'] };
    expect(gap({ request: either }).missing).toBe('none');
    expect(gap({ request: { maxAge: null, acrValues: ['urn:other'] } }).missing).toBe('none');
  });
});
