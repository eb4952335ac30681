import { setupOtpEmail, setupOtpSms, setupTotp } from './factor-setup';
import { loginName } from './login-name';
import { password } from './password';
import { passwordChange } from './password-change';
import { register } from './register';
import { otpEmail, otpSms, recovery, totp } from './second-factors';
import { selectAccount } from './select-account';
import type { LoginStep } from './types';
import { verifyEmail } from './verify-email';

/**
 * The hosted login's steps, in order. A new login step (a second factor, an identity provider) is one
 * module and one line here. Order matters twice: among the steps that can open the login the first
 * that `opens` wins (prompt=create before prompt=login); among the steps after the sign-in the first
 * `pending` one comes next.
 */
export const LOGIN_STEPS: LoginStep[] = [
  register,
  loginName,
  selectAccount,
  password,
  passwordChange,
  verifyEmail,
  // second factors and their set-up: reached by address (the login policy decides which one is due)
  totp,
  otpEmail,
  otpSms,
  recovery,
  setupTotp,
  setupOtpEmail,
  setupOtpSms,
];

/** The page the login opens with when no step claims the request and no single session answers it. */
export const FIRST_STEP = loginName;
