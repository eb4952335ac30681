import type { Context } from 'hono';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import type { AuthRequest } from '../domain/oidc/auth-requests';
import { execute, type UnitOfWork } from '../domain/execute';
import { finishAuthRequest, finishAuthRequestIn, type Refused } from '../domain/sign-in/finish';
import type { Session } from '../domain/session/sessions';
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
    const finished = await finishAuthRequest(oidcCtx(deps, 'login'), r, browser.fitting[0].id, 'reuse');
    if (finished.ok) return callbackUrl(r.id);
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
  const { user } = signedIn;
  const url = await execute(turn.ctx(user.id, user.orgId), (work) => proceedIn(turn, work, signedIn, undefined, after));
  return turn.see(url);
}

/**
 * `proceed` in the unit of work of a step that has just written the session (`session`, the row it
 * wrote): the answer to the auth request commits with the check. Returns where the browser goes, for
 * `proceeded`, which links a waiting external account once this has committed.
 */
export async function proceedIn(
  turn: Turn,
  work: UnitOfWork,
  signedIn: SignedIn,
  session: Session | undefined,
  after?: LoginStep,
): Promise<string> {
  const page = await pageStillToDo(turn, signedIn, after, work.tx, session);
  if (page) return page;
  // The finish rule again, on the rows as they commit: what a concurrent request changed since the
  // page was chosen sends the browser to what is now missing.
  const finished = await finishAuthRequestIn(work, turn.r, signedIn.sessionId, 'signed-in');
  return finished.ok ? callbackUrl(turn.r.id) : turn.url(refusedPage(finished));
}

/** The page that mends what the finish rule refused. */
function refusedPage(refused: Refused): string {
  if (refused.refusal === 'password_change_required') return 'password/change';
  return (refused.gap && gapPage(refused.gap)) ?? 'login';
}

/** After proceedIn's unit of work has committed: a waiting external account is linked, and the browser goes on. */
export async function proceeded(turn: Turn, signedIn: SignedIn, url: string): Promise<Response> {
  await linkPendingExternalAccount(turn, signedIn);
  return turn.see(url);
}

/** The page of what the policy or a later step still asks of the user, if anything. */
async function pageStillToDo(
  turn: Turn,
  signedIn: SignedIn,
  after?: LoginStep,
  db?: Db,
  session?: Session,
): Promise<string | undefined> {
  const missing = gapPage(await gapOf(turn, signedIn, db, session));
  if (missing) return turn.url(missing);
  const rest = after ? LOGIN_STEPS.slice(LOGIN_STEPS.indexOf(after) + 1) : LOGIN_STEPS;
  const next = rest.find((step) => step.pending?.(signedIn.user));
  return next ? turn.url(next.path) : undefined;
}
