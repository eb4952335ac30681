import { DomainError } from '../../domain/errors';
import { registrationAllowed } from '../../domain/org/login-policy';
import { defaultOrgId, findUserById, loginNameOf } from '../../domain/session/users';
import { setAuthRequestLoginName } from '../../domain/oidc/auth-requests';
import { getPasswordComplexity } from '../../domain/instance/password-complexity';
import { createUser } from '../../domain/user/create-user';
import { oidcCtx } from '../../oidc/env';
import { refusalText } from '../pages/password-rules';
import { RegisterPage, type RegisterValues } from '../pages/register';
import { errorPage } from '../render';
import { startSession } from './signed-in';
import type { LoginStep, Turn } from './types';
import { sourceOf } from '../../deps';

/** The organization a registration for this request joins: the org scope's, else the default one. */
const registrationOrg = async ({ r, deps }: Turn) => r.orgId ?? (await defaultOrgId(deps.database.db, deps.instanceId));

export const mayRegister = (turn: Turn) =>
  registrationAllowed(sourceOf(turn.deps), turn.deps.instanceId, turn.r.orgId ?? null);

const passwordRules = ({ deps }: Turn) => getPasswordComplexity({ ...sourceOf(deps), instanceId: deps.instanceId });

const registrationClosed = (turn: Turn) =>
  errorPage(turn.c, 'registration is not allowed for this organization', { status: 403, uiLocales: turn.r.uiLocales });

/** A new account (prompt=create, or the link on the login name page), in the request's organization. */
export const register: LoginStep = {
  path: 'register',
  opens: (r) => r.prompt.includes('create'),
  async page(turn) {
    if (!(await mayRegister(turn))) return registrationClosed(turn);
    const error = turn.queryError();
    const rules = await passwordRules(turn);
    return turn.render((base) => <RegisterPage {...base} values={{}} rules={rules} error={error} />);
  },
  async post(turn) {
    if (!(await mayRegister(turn))) return registrationClosed(turn);
    const { form, t, locale } = turn;
    const values: RegisterValues = {
      givenName: form.givenName,
      familyName: form.familyName,
      email: form.email,
      username: form.username,
    };
    const rules = await passwordRules(turn);
    const again = (error: string) =>
      turn.render((base) => <RegisterPage {...base} values={values} rules={rules} error={error} />, 400);
    if ((form.password ?? '') !== (form.passwordConfirm ?? '')) return again(t.passwordsDiffer);
    const orgId = await registrationOrg(turn);
    let userId: string;
    try {
      // The email is verified with a code the outbox sends; until then it stays unverified.
      ({ id: userId } = await createUser(oidcCtx(turn.deps, 'login/register'), {
        orgId,
        username: form.username?.trim() || undefined,
        human: {
          profile: { givenName: form.givenName ?? '', familyName: form.familyName ?? '', preferredLanguage: locale },
          email: { email: form.email ?? '', verification: { send: {} } },
          password: { password: form.password ?? '', changeRequired: false },
        },
      }));
    } catch (err) {
      // A taken username or address gets the same words as any other refusal of the account, so the
      // form cannot be used to find out who has an account; field errors still name the field.
      if (err instanceof DomainError && err.kind === 'already_exists') return again(t.registrationRefused);
      if (err instanceof DomainError && err.kind !== 'internal') return again(refusalText(err, t));
      throw err;
    }
    const user = await findUserById(turn.deps.database.db, userId);
    if (!user) return errorPage(turn.c, 'registration failed');
    await setAuthRequestLoginName(turn.ctx(), turn.r.id, loginNameOf(user));
    await startSession(turn, user);
    // The code sent through the outbox verifies the address; then the request continues.
    return turn.see(turn.url('verify-email'));
  },
};
