import { DomainError, LimitError } from '../../domain/errors';
import { execute } from '../../domain/execute';
import { checkOtp, hasLiveOtpChallenge, type OtpKind, openOtpChallenge } from '../../domain/session/checks/otp';
import { checkRecoveryCode } from '../../domain/session/checks/recovery-code';
import { checkTotp } from '../../domain/session/checks/totp';
import { hasRecoveryCodes } from '../../domain/session/policy-gap';
import type { AfterCheck } from '../../domain/session/checks/otp-lockout';
import { type CodeFactor, FACTORS } from '../../domain/sign-in/factors';
import type { Messages } from '../i18n';
import { CodePage } from '../pages/codes';
import { withSignedInUser } from './signed-in';
import type { LoginStep, SignedIn, Turn } from './types';

/** A code's check; `then` runs in its transaction with the session it updated, and its result is the answer. */
type Check = <T>(turn: Turn, signedIn: SignedIn, code: string, then: AfterCheck<T>) => Promise<T>;

interface CodeStep {
  /** the factor the page checks: its page's path (and, for a code it sends, the challenge) are declared there */
  factor: CodeFactor;
  title: (t: Messages) => string;
  text: (t: Messages) => string;
  label: (t: Messages) => string;
  numeric: boolean;
  check: Check;
}

/** Email and SMS: a code is sent when the page opens without one, and on request. */
const sentCode = (factor: CodeFactor): OtpKind | undefined =>
  factor === 'otpEmail' || factor === 'otpSms' ? factor : undefined;

/**
 * A page that checks one second-factor code of the signed-in user and goes on with the login. A
 * wrong code and a locked account answer on the page; the lockout rule is the domain's.
 */
function codeStep(spec: CodeStep): LoginStep {
  const otp = sentCode(spec.factor);
  const path = FACTORS[spec.factor].checkPath;
  const step: LoginStep = {
    path,
    page: (turn) =>
      withSignedInUser(turn, 'login', async (signedIn) => {
        const { t } = turn;
        if (otp && !(await hasLiveOtpChallenge(turn.deps.database.db, signedIn.sessionId, otp)))
          await sendCode(turn, signedIn, otp).catch(ignoreTooSoon);
        const error = turn.queryError({ invalid: t.wrongCode, locked: t.locked, soon: t.otpTooSoon });
        const notice = turn.c.req.query('sent') ? t.codeResent : undefined;
        const recoverable =
          spec.factor !== 'recoveryCode' && (await hasRecoveryCodes(turn.deps.database.db, signedIn.user.id));
        return turn.render((base) => (
          <CodePage
            {...base}
            path={path}
            title={spec.title(t)}
            text={spec.text(t)}
            label={spec.label(t)}
            numeric={spec.numeric}
            error={error}
            notice={notice}
            resend={otp ? `/ui/login/${path}/resend` : undefined}
            alternative={
              recoverable ? { href: turn.url(FACTORS.recoveryCode.checkPath), text: t.useRecoveryCode } : undefined
            }
          />
        ));
      }),
    post: (turn) =>
      withSignedInUser(turn, 'login', async (signedIn) => {
        try {
          // the check and, when nothing else is left, the answer to the request commit together
          return await spec.check(turn, signedIn, (turn.form.code ?? '').trim(), (work) =>
            turn.proceed(signedIn, step, work),
          );
        } catch (err) {
          if (err instanceof DomainError && err.kind === 'invalid_argument')
            return turn.see(`${turn.url(path)}&error=invalid`);
          if (err instanceof DomainError && err.kind === 'failed_precondition')
            return turn.see(`${turn.url(path)}&error=locked`);
          throw err;
        }
      }),
  };
  if (otp) {
    const kind = otp;
    step.actions = {
      resend: (turn) =>
        withSignedInUser(turn, 'login', async (signedIn) => {
          try {
            await sendCode(turn, signedIn, kind);
          } catch (err) {
            if (err instanceof LimitError) return turn.see(`${turn.url(path)}&error=soon`);
            throw err;
          }
          return turn.see(`${turn.url(path)}&sent=1`);
        }),
    };
  }
  return step;
}

function sendCode(turn: Turn, { user, sessionId }: SignedIn, kind: OtpKind) {
  return execute(turn.ctx(user.id, user.orgId), (work) =>
    openOtpChallenge(work, sessionId, user, kind, { send: true }),
  );
}

/** Opening the page: a code asked for moments ago stays valid; a missing factor fails at the check. */
function ignoreTooSoon(err: unknown) {
  if (err instanceof LimitError || (err instanceof DomainError && err.kind === 'failed_precondition')) return;
  throw err;
}

const ctxOf = (turn: Turn, { user }: SignedIn) => turn.ctx(user.id, user.orgId);

export const totp = codeStep({
  factor: 'totp',
  title: (t) => t.totpTitle,
  text: (t) => t.totpText,
  label: (t) => t.otpCodeLabel,
  numeric: true,
  check: (turn, s, code, then) => checkTotp(ctxOf(turn, s), s.sessionId, s.user, code, then),
});

export const otpEmail = codeStep({
  factor: 'otpEmail',
  title: (t) => t.otpEmailTitle,
  text: (t) => t.otpEmailText,
  label: (t) => t.otpCodeLabel,
  numeric: true,
  check: (turn, s, code, then) => checkOtp(ctxOf(turn, s), s.sessionId, s.user, 'otpEmail', code, then),
});

export const otpSms = codeStep({
  factor: 'otpSms',
  title: (t) => t.otpSmsTitle,
  text: (t) => t.otpSmsText,
  label: (t) => t.otpCodeLabel,
  numeric: true,
  check: (turn, s, code, then) => checkOtp(ctxOf(turn, s), s.sessionId, s.user, 'otpSms', code, then),
});

export const recovery = codeStep({
  factor: 'recoveryCode',
  title: (t) => t.recoveryTitle,
  text: (t) => t.recoveryText,
  label: (t) => t.recoveryCodeLabel,
  numeric: false,
  check: (turn, s, code, then) => checkRecoveryCode(ctxOf(turn, s), s.sessionId, s.user, code, then),
});
