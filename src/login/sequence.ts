import type { Context } from 'hono';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { type AuthRequest, linkSession, linkSessionToAuthRequest } from '../domain/oidc/auth-requests';
import type { UnitOfWork } from '../domain/execute';
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
  const page = await pageStillToDo(turn, signedIn, after);
  if (page) return turn.see(page);
  const { user, sessionId } = signedIn;
  await linkSessionToAuthRequest(turn.ctx(user.id, user.orgId), turn.r.id, sessionId);
  return turn.see(callbackUrl(turn.r.id));
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
  session: Session,
  after?: LoginStep,
): Promise<string> {
  const page = await pageStillToDo(turn, signedIn, after, work.tx, session);
  if (page) return page;
  await linkSession(work, turn.r.id, signedIn.sessionId);
  return callbackUrl(turn.r.id);
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
