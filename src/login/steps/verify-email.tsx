import { DomainError } from '../../domain/errors';
import type { LoginUser } from '../../domain/session/users';
import { resendEmailCode, verifyEmail as verifyEmailCode } from '../../domain/user/email';
import { VerifyEmailPage } from '../pages/verify-email';
import { withSignedInUser } from './signed-in';
import type { LoginStep } from './types';

const verified = (user: LoginUser) => user.emailVerified || !user.email;

/**
 * The code the outbox mailed after registration. It is not `pending` for every unverified user:
 * only the registration leads here; users with an unverified address sign in as before.
 */
export const verifyEmail: LoginStep = {
  path: 'verify-email',
  page: (turn) =>
    withSignedInUser(turn, 'login', async (signedIn) => {
      if (verified(signedIn.user)) return turn.proceed(signedIn, verifyEmail);
      const { t } = turn;
      const error = turn.queryError({ invalid: t.invalidCode });
      const notice = turn.c.req.query('sent') ? t.codeResent : undefined;
      const email = signedIn.user.email ?? '';
      return turn.render((base) => <VerifyEmailPage {...base} email={email} error={error} notice={notice} />);
    }),
  post: (turn) =>
    withSignedInUser(turn, 'login', async (signedIn) => {
      const { user } = signedIn;
      if (!user.emailVerified) {
        try {
          await verifyEmailCode(turn.ctx(user.id, user.orgId), {
            userId: user.id,
            code: (turn.form.code ?? '').trim(),
          });
        } catch (err) {
          if (err instanceof DomainError && err.kind === 'invalid_argument')
            return turn.see(`${turn.url('verify-email')}&error=invalid`);
          throw err;
        }
      }
      return turn.proceed(signedIn, verifyEmail);
    }),
  actions: {
    resend: (turn) =>
      withSignedInUser(turn, 'login', async (signedIn) => {
        const { user } = signedIn;
        if (verified(user)) return turn.proceed(signedIn, verifyEmail);
        await resendEmailCode(turn.ctx(user.id, user.orgId), { userId: user.id, verification: { send: {} } });
        return turn.see(`${turn.url('verify-email')}&sent=1`);
      }),
  },
};
