import { setAuthRequestLoginName } from '../../domain/oidc/auth-requests';
import { finishAuthRequest } from '../../domain/sign-in/finish';
import { callbackUrl } from '../../domain/oidc/callback-url';
import { browserSessions } from '../flow';
import { SelectAccountPage } from '../pages/select-account';
import type { LoginStep } from './types';

/** The browser's accounts: prompt=select_account, or several sessions that could answer the request. */
export const selectAccount: LoginStep = {
  path: 'accounts',
  opens: (r, { sessions, fitting }) =>
    (r.prompt.includes('select_account') && sessions.length > 0) || fitting.length > 1,
  async page(turn) {
    const { r } = turn;
    const sessions = await browserSessions(turn.c, turn.deps);
    if (sessions.length === 0) return turn.see(turn.url('login'));
    const hint = r.loginHint?.toLowerCase();
    const accounts = sessions.map((s) => ({
      sessionId: s.id,
      loginName: s.loginName ?? '',
      displayName: s.displayName ?? s.loginName ?? '',
      preselected: !!hint && (s.loginName ?? '').toLowerCase().startsWith(hint),
    }));
    return turn.render((base) => <SelectAccountPage {...base} accounts={accounts} />);
  },
  async post(turn) {
    const { r } = turn;
    const chosen = (await browserSessions(turn.c, turn.deps)).find((s) => s.id === turn.form.sessionId);
    if (!chosen) return turn.see(turn.url('login'));
    const finished = await finishAuthRequest(turn.ctx(chosen.userId ?? undefined), r, chosen.id, 'reuse');
    if (finished.ok) return turn.see(callbackUrl(r.id));
    // The session is too old for max_age (or otherwise unfit): re-authenticate that user.
    await setAuthRequestLoginName(turn.ctx(), r.id, chosen.loginName ?? '');
    return turn.see(turn.url('password'));
  },
  // The page shows no error: a failed check just shows the accounts again.
  csrfFailure: (turn) => turn.url('accounts'),
};
