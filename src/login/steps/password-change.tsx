import { DomainError } from '../../domain/errors';
import { loginNameOf, type LoginUser } from '../../domain/session/users';
import { setPassword } from '../../domain/user/credentials';
import { oidcCtx } from '../../oidc/env';
import { getPasswordComplexity } from '../../domain/instance/password-complexity';
import { PasswordChangePage } from '../pages/password-change';
import { refusalText } from '../pages/password-rules';
import { withSignedInUser } from './signed-in';
import type { LoginStep, Turn } from './types';
import { sourceOf } from '../../deps';

const changePage = async (turn: Turn, user: LoginUser, error?: string, status = 200) => {
  const rules = await getPasswordComplexity({ ...sourceOf(turn.deps), instanceId: turn.deps.instanceId });
  return turn.render(
    (base) => <PasswordChangePage {...base} loginName={loginNameOf(user)} rules={rules} error={error} />,
    status,
  );
};

/** A required password change (imported users, a generated admin password) before the request completes. */
export const passwordChange: LoginStep = {
  path: 'password/change',
  pending: (user) => user.passwordChangeRequired,
  page: (turn) =>
    withSignedInUser(turn, 'password', async (signedIn) => {
      if (!signedIn.user.passwordChangeRequired) return turn.proceed(signedIn, passwordChange);
      return changePage(turn, signedIn.user, turn.queryError());
    }),
  post: (turn) =>
    withSignedInUser(turn, 'password', async (signedIn) => {
      const { user } = signedIn;
      const { form, t } = turn;
      if (user.passwordChangeRequired) {
        if ((form.password ?? '') !== (form.passwordConfirm ?? ''))
          return changePage(turn, user, t.passwordsDiffer, 400);
        try {
          // The user proved the old password in this request (the session's fresh check): the server
          // sets the new one, under the instance's password policy.
          await setPassword(oidcCtx(turn.deps, 'login/password-change'), {
            userId: user.id,
            password: form.password ?? '',
            changeRequired: false,
          });
        } catch (err) {
          if (err instanceof DomainError && err.kind === 'invalid_argument')
            return changePage(turn, user, refusalText(err, t), 400);
          throw err;
        }
      }
      return turn.proceed(signedIn, passwordChange);
    }),
};
