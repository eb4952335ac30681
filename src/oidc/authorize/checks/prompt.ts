import type { Context } from 'hono';
import type { Deps } from '../../../deps';
import type { AuthRequest } from '../../../domain/oidc/auth-requests';
import { interactionRequired, invalidRequest, loginRequired } from '../../../domain/oidc/oauth-errors';
import { splitScopes } from '../../../domain/oidc/scopes';
import { browserSessions, fittingSessions } from '../../../login/flow';
import type { AuthorizeCheck } from './types';

/** The prompt values we act on (discovery advertises them); others are ignored. */
export const PROMPTS = ['none', 'login', 'select_account', 'create', 'consent'];

/** prompt=none means "no interaction at all", so it cannot be combined with a value asking for one. */
export const prompt: AuthorizeCheck = ({ params }) => {
  const prompt = splitScopes(params.get('prompt')).filter((p) => PROMPTS.includes(p));
  if (prompt.includes('none') && prompt.length > 1) {
    throw invalidRequest('prompt none cannot be combined with other values');
  }
  return { prompt };
};

/**
 * prompt=none, once the auth request is stored: the one session of this browser that may finish it
 * silently; none or several is the error the client gets, as the user cannot be asked.
 */
export async function promptNoneSession(c: Context, deps: Deps, request: AuthRequest) {
  const fitting = await fittingSessions(deps, await browserSessions(c, deps), request);
  if (fitting.length === 0) throw loginRequired('no session fits the request; the user must sign in');
  if (fitting.length > 1) throw interactionRequired('several sessions fit; the user must choose');
  return fitting[0];
}
