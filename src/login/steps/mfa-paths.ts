import type { SecondFactorChoice, SetupChoice } from '../../domain/session/policy-gap';

/** The login page that checks each second factor (the factor steps own them). */
export const CHECK_PATHS: Record<SecondFactorChoice, string> = {
  totp: 'totp',
  otpEmail: 'otp-email',
  otpSms: 'otp-sms',
  webAuthN: 'webauthn',
  recoveryCode: 'recovery',
};

/** The login page that sets up each factor. */
export const SETUP_PATHS: Record<SetupChoice, string> = {
  totp: 'setup-totp',
  passkey: 'setup-passkey',
  otpEmail: 'setup-otp-email',
  otpSms: 'setup-otp-sms',
};
