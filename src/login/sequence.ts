import type { Context } from 'hono';
import { type Deps, sourceOf } from '../deps';
import type { Db } from '../db/client';
import { type AuthRequest, setAuthRequestLoginName } from '../domain/oidc/auth-requests';
import { finishRefusalWithPolicy } from '../domain/oidc/may-finish';
import type { SessionView } from '../domain/session/sessions';
import { execute, type UnitOfWork } from '../domain/execute';
import { finishAuthRequest, finishAuthRequestIn, type Refused } from '../domain/sign-in/finish';
import { callbackUrl } from '../domain/oidc/callback-url';
import { takePendingExternalLink } from './idp/pending-link';
import { gapOf, gapPage } from './mfa-gap';
import { oidcCtx } from '../oidc/env';
import { browserSessions, fittingSessions, pageUrl } from './flow';
import { FIRST_STEP, LOGIN_STEPS } from './steps/index';
import type { BrowserState, LoginStep, SignedIn, Turn } from './steps/types';

/**
 * Where an interactive request goes next (§2.2): the first step that opens for it (create →
 * registration; login → login page; select_account or several fitting sessions → account list);
 * otherwise one fitting session answers at once. The browser's one session that lacks only what the
 * login policy asks now (a second factor its user has set up since, say) continues at that step with
 * its user's login name; without a session the user signs in.
 */
export async function nextStep(c: Context, deps: Deps, r: AuthRequest): Promise<string> {
  const sessions = await browserSessions(c, deps);
  const browser: BrowserState = { sessions, fitting: await fittingSessions(deps, sessions, r) };
  const opening = LOGIN_STEPS.find((step) => step.opens?.(r, browser));
  if (opening) return pageUrl(opening.path, r.id);
  if (browser.fitting.length === 1) {
    const finished = await finishAuthRequest(oidcCtx(deps, 'login'), r, browser.fitting[0].id, 'reuse');
    if (finished.ok) return callbackUrl(r.id);
  }
  if (browser.fitting.length === 0 && sessions.length === 1) {
    const continued = await continueSession(deps, sessions[0], r);
    if (continued) return pageUrl(continued, r.id);
  }
  return pageUrl(FIRST_STEP.path, r.id);
}

/**
 * The page where a session that may be reused for the request, but for what the login policy asks, gets
 * it; the request takes the session's login name, so that the step knows whose it is.
 */
async function continueSession(deps: Deps, s: SessionView, r: AuthRequest): Promise<string | undefined> {
  const refused = await finishRefusalWithPolicy(sourceOf(deps), deps.instanceId, s, r, 'reuse');
  const page = refused?.refusal === 'policy' && refused.gap ? gapPage(refused.gap) : undefined;
  if (!page || !s.loginName) return undefined;
  await setAuthRequestLoginName(oidcCtx(deps, 'login'), r.id, s.loginName);
  return page;
}

/**
 * The one way on after a sign-in or a step after it: a waiting upstream account is linked (once the
 * answer has committed, src/login/gate.ts runs it); then what
 * the login policy still asks (a second factor, its set-up, a passkey), then the next step (after
 * `after`) this user still has to do; when none is left the session finishes the auth request and the
 * browser goes on to the callback. A check that has just signed the user in passes its unit of work
 * (`work`): the answer then commits with the check, or neither does. Otherwise this is a unit of work
 * of its own.
 */
export async function proceed(turn: Turn, signedIn: SignedIn, after?: LoginStep, work?: UnitOfWork): Promise<Response> {
  const next = async (work: UnitOfWork) => {
    const page = await pageStillToDo(turn, signedIn, after, work.tx);
    if (page) return page;
    // The finish rule again, on the rows as they commit: what a concurrent request changed since the
    // page was chosen sends the browser to what is now missing.
    const finished = await finishAuthRequestIn(work, turn.r, signedIn.sessionId, 'signed-in');
    return finished.ok ? callbackUrl(turn.r.id) : turn.url(refusedPage(finished));
  };
  const link = takePendingExternalLink(turn, signedIn);
  if (link) turn.afterCommit(link);
  const { user } = signedIn;
  return turn.see(work ? await next(work) : await execute(turn.ctx(user.id, user.orgId), next));
}

/** The page that mends what the finish rule refused. */
function refusedPage(refused: Refused): string {
  if (refused.refusal === 'password_change_required') return 'password/change';
  return (refused.gap && gapPage(refused.gap)) ?? 'login';
}

/** The page of what the policy or a later step still asks of the user, if anything. */
async function pageStillToDo(turn: Turn, signedIn: SignedIn, after: LoginStep | undefined, db: Db) {
  const missing = gapPage(await gapOf(turn, signedIn, db));
  if (missing) return turn.url(missing);
  const rest = after ? LOGIN_STEPS.slice(LOGIN_STEPS.indexOf(after) + 1) : LOGIN_STEPS;
  const next = rest.find((step) => step.pending?.(signedIn.user));
  return next ? turn.url(next.path) : undefined;
}
