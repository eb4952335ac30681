import type { Context } from 'hono';
import type { Deps } from '../deps';
import { type AuthRequest, linkSessionToAuthRequest } from '../domain/oidc/auth-requests';
import { callbackUrl } from '../domain/oidc/callback-url';
import { linkPendingExternalAccount } from './idp/pending-link';
import { gapOf, gapPage } from './mfa-gap';
import { oidcCtx } from '../oidc/env';
import { browserSessions, fittingSessions, pageUrl } from './flow';
import { FIRST_STEP, LOGIN_STEPS } from './steps/index';
import type { BrowserState, LoginStep, SignedIn, Turn } from './steps/types';

/**
 * Where an interactive request goes next (§2.2): the first step that opens for it (create →
 * registration; login → login page; select_account or several fitting sessions → account list);
 * otherwise one fitting session answers at once, none asks to sign in.
 */
export async function nextStep(c: Context, deps: Deps, r: AuthRequest): Promise<string> {
  const sessions = await browserSessions(c, deps);
  const browser: BrowserState = { sessions, fitting: await fittingSessions(deps, sessions, r) };
  const opening = LOGIN_STEPS.find((step) => step.opens?.(r, browser));
  if (opening) return pageUrl(opening.path, r.id);
  if (browser.fitting.length === 1) {
    await linkSessionToAuthRequest(oidcCtx(deps, 'login'), r.id, browser.fitting[0].id);
    return callbackUrl(r.id);
  }
  return pageUrl(FIRST_STEP.path, r.id);
}

/**
 * After the sign-in or a step after it: first what the login policy still asks (a second factor, its
 * set-up, a passkey), then the next step (after `after`) this user still has to do; when none is left
 * the session answers the auth request and the browser goes on to the callback.
 */
export async function proceed(turn: Turn, signedIn: SignedIn, after?: LoginStep): Promise<Response> {
  await linkPendingExternalAccount(turn, signedIn);
  const missing = gapPage(await gapOf(turn, signedIn));
  if (missing) return turn.see(turn.url(missing));
  const rest = after ? LOGIN_STEPS.slice(LOGIN_STEPS.indexOf(after) + 1) : LOGIN_STEPS;
  const next = rest.find((step) => step.pending?.(signedIn.user));
  if (next) return turn.see(turn.url(next.path));
  const { user, sessionId } = signedIn;
  await linkSessionToAuthRequest(turn.ctx(user.id, user.orgId), turn.r.id, sessionId);
  return turn.see(callbackUrl(turn.r.id));
}
