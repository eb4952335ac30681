import { loginProviders } from '../../domain/idp/external-sign-in';
import { setAuthRequestLoginName } from '../../domain/oidc/auth-requests';
import { LoginNamePage } from '../pages/login-name';
import { withScript } from '../webauthn-script';
import { mayRegister } from './register';
import type { LoginStep } from './types';
import { sourceOf } from '../../deps';

/** The login name; also the page the login falls back to. */
export const loginName: LoginStep = {
  path: 'login',
  opens: (r) => r.prompt.includes('login'),
  async page(turn) {
    const { r } = turn;
    const error = turn.queryError();
    const canRegister = await mayRegister(turn);
    const providers = await loginProviders(sourceOf(turn.deps), turn.deps.instanceId, r.orgId);
    // the passkey button and the login name field's autofill run the WebAuthn script
    return withScript(
      turn.render((base) => (
        <LoginNamePage
          {...base}
          loginName={r.loginName ?? r.loginHint ?? ''}
          error={error}
          canRegister={canRegister}
          providers={providers}
        />
      )),
    );
  },
  async post(turn) {
    const loginName = (turn.form.loginName ?? '').trim().slice(0, 200);
    if (!loginName) return turn.see(turn.url('login'));
    await setAuthRequestLoginName(turn.ctx(), turn.r.id, loginName);
    // The password page comes next whether or not the user exists: nothing is enumerated.
    return turn.see(turn.url('password'));
  },
};
