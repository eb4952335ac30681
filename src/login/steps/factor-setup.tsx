import { DomainError } from '../../domain/errors';
import { addOtpChannel, type OtpChannel, verifiedTarget } from '../../domain/user/factors/otp-channels';
import { registerTotp, verifyTotpRegistration } from '../../domain/user/factors/totp';
import type { OtpKind } from '../../domain/session/checks/otp';
import { FACTORS, SETUP } from '../../domain/sign-in/factors';
import type { Messages } from '../i18n';
import { SetupOtpPage, SetupTotpPage } from '../pages/codes';
import { withSignedInUser } from './signed-in';
import type { LoginStep } from './types';

/**
 * Setting up an authenticator app: each visit starts a new registration (a new key replaces a pending
 * one), the page shows its QR code and key, and the first right code makes it ready and checks it in
 * this session.
 */
export const setupTotp: LoginStep = {
  path: SETUP.totp.path,
  page: (turn) =>
    withSignedInUser(turn, 'login', async (signedIn) => {
      const { user } = signedIn;
      const { t } = turn;
      let reg: Awaited<ReturnType<typeof registerTotp>>;
      try {
        reg = await registerTotp(turn.ctx(user.id, user.orgId), user.id);
      } catch (err) {
        if (err instanceof DomainError && err.kind === 'already_exists') return turn.proceed(signedIn, setupTotp);
        throw err;
      }
      const error = turn.queryError({ invalid: t.wrongCode });
      return turn.render((base) => <SetupTotpPage {...base} qrCode={reg.qrCode} secret={reg.secret} error={error} />);
    }),
  post: (turn) =>
    withSignedInUser(turn, 'login', async (signedIn) => {
      const { user, sessionId } = signedIn;
      try {
        await verifyTotpRegistration(turn.ctx(user.id, user.orgId), user.id, (turn.form.code ?? '').trim(), {
          sessionId,
        });
      } catch (err) {
        if (err instanceof DomainError && (err.kind === 'invalid_argument' || err.kind === 'not_found'))
          return turn.see(`${turn.url(SETUP.totp.path)}&error=invalid`);
        throw err;
      }
      return turn.proceed(signedIn, setupTotp);
    }),
};

/** Turning on email or SMS codes for the verified address or phone. */
function setupOtp(choice: OtpKind, strings: (t: Messages) => { title: string; text: string }) {
  const { path } = SETUP[choice];
  const type: OtpChannel = FACTORS[choice].row;
  const step: LoginStep = {
    path,
    page: (turn) =>
      withSignedInUser(turn, 'login', async ({ user }) => {
        const { t } = turn;
        const target = await verifiedTarget(turn.deps.database.db, user.id, type);
        const { title, text } = strings(t);
        return turn.render((base) => <SetupOtpPage {...base} path={path} title={title} text={text} target={target} />);
      }),
    post: (turn) =>
      withSignedInUser(turn, 'login', async (signedIn) => {
        const { user } = signedIn;
        try {
          await addOtpChannel(turn.ctx(user.id, user.orgId), user.id, type);
        } catch (err) {
          // already on: nothing to do; no verified address: the page says so
          if (!(err instanceof DomainError && ['already_exists', 'failed_precondition'].includes(err.kind))) throw err;
          if (err.kind === 'failed_precondition') return turn.see(turn.url(path));
        }
        return turn.proceed(signedIn, step);
      }),
  };
  return step;
}

export const setupOtpEmail = setupOtp('otpEmail', (t) => ({
  title: t.setupOtpEmailTitle,
  text: t.setupOtpEmailText,
}));

export const setupOtpSms = setupOtp('otpSms', (t) => ({
  title: t.setupOtpSmsTitle,
  text: t.setupOtpSmsText,
}));
