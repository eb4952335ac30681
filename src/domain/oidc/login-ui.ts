import { randomToken, sha256Hex } from '../../crypto/random';
import type { Ctx } from '../context';
import { failedPrecondition, invalidArgument, notFound } from '../errors';
import { requireLoginUiPermission } from '../session/login-ui-permission';
import { getSession } from '../session/sessions';
import type { PolicyGap } from '../session/policy-gap';
import { finishAuthRequest } from '../sign-in/finish';
import { type AuthRequest, failAuthRequest, findPendingAuthRequest } from './auth-requests';

const ERRORS = [
  'access_denied',
  'login_required',
  'interaction_required',
  'consent_required',
  'account_selection_required',
  'server_error',
  'temporarily_unavailable',
];

/** GetAuthRequest for custom login UIs. */
export async function getAuthRequestForLoginUi(ctx: Ctx, id: string): Promise<AuthRequest> {
  requireLoginUiPermission(ctx);
  const r = await findPendingAuthRequest(ctx.db, id);
  if (!r) throw notFound('Errors.AuthRequest.NotFound', 'auth request not found or expired');
  return r;
}

/**
 * CreateCallback: links a session whose token the login UI holds and whose password was checked (or
 * an OAuth error); the returned path answers the client once opened by the browser. A user who must
 * change the password is refused until the login UI has set a new one.
 */
export async function createCallback(
  ctx: Ctx,
  id: string,
  answer: { session: { id: string; token: string } } | { error: { error: string; description: string } },
): Promise<{ request: AuthRequest; callbackKey: string }> {
  requireLoginUiPermission(ctx);
  // The callback URL carries this key: only the browser the login UI sends there can complete the
  // request, not whoever learns the auth request's id.
  const callbackKey = randomToken(24);
  const keyHash = sha256Hex(callbackKey);
  const r = await findPendingAuthRequest(ctx.db, id);
  if (!r) throw notFound('Errors.AuthRequest.NotFound', 'auth request not found or expired');
  if ('error' in answer) {
    if (!ERRORS.includes(answer.error.error))
      throw invalidArgument('Errors.AuthRequest.Error', `error must be one of ${ERRORS.join(', ')}`);
    return {
      request: await failAuthRequest(ctx, id, answer.error.error, answer.error.description, keyHash),
      callbackKey,
    };
  }
  const session = await getSession(ctx.db, answer.session.id, answer.session.token);
  if (!session) throw notFound('Errors.Session.NotFound', 'session not found');
  // The rule is checked on the session as it is when the link commits, not as it was read above.
  const finished = await finishAuthRequest(ctx, r, session.id, 'signed-in', keyHash);
  if (finished.ok) return { request: finished.value, callbackKey };
  const { refusal, gap } = finished;
  if (refusal === 'gone') throw notFound('Errors.Session.NotFound', 'session not found');
  if (refusal === 'not_authenticated')
    throw invalidArgument('Errors.Session.NotAuthenticated', 'session: the session has no checked user and password');
  // As in the hosted login: a required password change comes before any sign-in completes.
  if (refusal === 'password_change_required') {
    throw failedPrecondition(
      'Errors.User.PasswordChangeRequired',
      'session: the user must set a new password first (UserService.SetPassword)',
    );
  }
  throw failedPrecondition(
    'Errors.Session.LoginPolicy',
    `session: ${gap ? policyMessage(gap) : 'the session does not satisfy the login policy'}`,
  );
}

/** What a custom login UI must still check before the session answers the request, in words. */
export function policyMessage(gap: PolicyGap): string {
  switch (gap.missing) {
    case 'first-factor':
      return {
        expired: 'the first factor was checked longer ago than the login policy allows; check it again',
        'max-age': "the first factor was checked longer ago than the request's max_age; check it again",
        'passkey-required': 'the login policy requires a passkey (checks.web_auth_n with user verification)',
        missing: 'the session has no checked first factor',
      }[gap.reason];
    case 'second-factor':
      return `the login policy requires a second factor; check one of: ${gap.factors.join(', ')}`;
    case 'factor-setup':
      return `the login policy requires a second factor and the user has none; set one up: ${gap.factors.join(', ')}`;
    default:
      return 'the session does not satisfy the login policy';
  }
}
