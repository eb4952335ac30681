import { findUserByLoginName } from '../../domain/session/users';
import { checkPassword } from '../../domain/session/password-check';
import { PasswordPage } from '../pages/password';
import { newUserAgent, setUserAgent } from '../cookies';
import { startSessionIn } from './signed-in';
import type { LoginStep } from './types';
import { sourceOf } from '../../deps';

/** The password of the login name the request carries. */
export const password: LoginStep = {
  path: 'password',
  async page(turn) {
    const { r, t } = turn;
    if (!r.loginName) return turn.see(turn.url('login'));
    const error = turn.queryError({ invalid: t.invalidCredentials, locked: t.locked });
    const name = r.loginName;
    return turn.render((base) => <PasswordPage {...base} loginName={name} error={error} />);
  },
  async post(turn) {
    const { r, deps } = turn;
    if (!r.loginName) return turn.see(turn.url('login'));
    // Only users of the organization the sign-in is for (the org scope) are found.
    const user = await findUserByLoginName(sourceOf(deps), deps.instanceId, r.loginName, r.orgId ?? undefined);
    const ua = newUserAgent();
    // The check, the session and, when no other step is left, the answer to the request commit together.
    // A step the user still has to do (a required password change) comes before the session answers.
    const result = await checkPassword(
      turn.ctx(user?.id, user?.orgId),
      user,
      turn.form.password ?? '',
      async (work, user) => {
        const session = await startSessionIn(turn, work, user, ua.hash);
        // only a right password sends the new cookie: a refused one leaves the browser's sessions as they were
        setUserAgent(turn.c, ua.value);
        return turn.proceed({ user, sessionId: session.id }, undefined, work);
      },
    );
    if (!result.ok) return turn.see(`${turn.url('password')}&error=${result.reason}`);
    return result.followUp;
  },
};
