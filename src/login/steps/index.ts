import { externalLogin, ldapLogin } from './external-login';
import { setupOtpEmail, setupOtpSms, setupTotp } from './factor-setup';
import { loginName } from './login-name';
import { mfa } from './mfa';
import { mfaSetup } from './mfa-setup';
import { passkey, setupPasskey, webauthn } from './passkeys';
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
  passkey,
  selectAccount,
  password,
  // sign-ins through external identity providers, reached from the login name page's buttons
  externalLogin,
  ldapLogin,
  // the login policy's steps (proceed goes to them first when the session misses a factor), then the
  // second factors and their set-up, reached by address from them
  mfa,
  mfaSetup,
  totp,
  otpEmail,
  otpSms,
  recovery,
  webauthn,
  setupTotp,
  setupOtpEmail,
  setupOtpSms,
  setupPasskey,
  passwordChange,
  verifyEmail,
];

/** The page the login opens with when no step claims the request and no single session answers it. */
export const FIRST_STEP = loginName;
