import { type FactorChecks, firstFactorAt } from '../session/factors';
import { type PolicyGap, sessionPolicyGap } from '../session/policy-gap';
import { maySignIn, SESSION_REUSE } from '../session/may-sign-in';
import type { AuthRequest } from './auth-requests';
import type { Source } from '../context';

/** What the rule reads of a session (and of its user, where the caller loaded them). */
export interface FinishingSession {
  userId: string | null;
  orgId: string | null;
  passwordCheckedAt: Date | null;
  factorChecks?: FactorChecks | null;
  userState?: string | null;
  passwordChangeRequired?: boolean | null;
}

/**
 * How the session comes to the request:
 * - `reuse`: a session that exists already answers without the user signing in again (prompt=none,
 *   the hosted login's automatic pick and account choice). It must fit the request: its user may still
 *   sign in, it belongs to the organization the request is limited to, it is the id_token_hint's
 *   subject, and the authentication is younger than max_age.
 * - `signed-in`: the user has just signed in for this request (the hosted login's password step, or a
 *   custom login UI through CreateCallback). The organization and the user's state are checked when the
 *   request is answered (`answerAuthRequest`); hint and max_age are the login UI's to apply.
 */
export type FinishMode = 'reuse' | 'signed-in';

export type FinishRefusal = 'not_authenticated' | 'password_change_required' | 'unfit' | 'policy';

/**
 * The one rule for "may this session finish this auth request". In every mode the session has a user
 * who was authenticated by a first factor (password, or a user-verifying passkey), and a user who must
 * set a new password does that first.
 */
export function finishRefusal(s: FinishingSession, r: AuthRequest, mode: FinishMode): FinishRefusal | undefined {
  const authenticatedAt = firstFactorAt(s);
  if (!s.userId || !authenticatedAt) return 'not_authenticated';
  if (s.passwordChangeRequired) return 'password_change_required';
  if (mode === 'signed-in') return undefined;
  if (s.userState && !maySignIn({ state: s.userState }, SESSION_REUSE)) return 'unfit';
  if (r.orgId && s.orgId !== r.orgId) return 'unfit';
  if (r.hintUserId && s.userId !== r.hintUserId) return 'unfit';
  if (r.maxAge !== null && r.maxAge !== undefined && Date.now() - authenticatedAt.getTime() > r.maxAge * 1000)
    return 'unfit';
  return undefined;
}

/**
 * The rule above, then the login policy (src/domain/session/policy-gap.ts): the session's checks must
 * be within their lifetimes and max_age, and include a second factor when the policy, the request's
 * acr_values or the user's own factors ask for one. `gap` says what is missing under the policy.
 */
export async function finishRefusalWithPolicy(
  src: Source,
  instanceId: string,
  s: FinishingSession,
  r: AuthRequest,
  mode: FinishMode,
): Promise<{ refusal: FinishRefusal; gap?: PolicyGap } | undefined> {
  const refusal = finishRefusal(s, r, mode);
  if (refusal) return { refusal };
  const gap = await sessionPolicyGap(src, instanceId, s, r);
  return gap.missing === 'none' ? undefined : { refusal: 'policy', gap };
}

export const mayFinish = async (
  src: Source,
  instanceId: string,
  s: FinishingSession,
  r: AuthRequest,
  mode: FinishMode,
): Promise<boolean> => (await finishRefusalWithPolicy(src, instanceId, s, r, mode)) === undefined;
