import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { Deps } from '../../deps';
import type { Ctx } from '../../domain/context';
import type { AuthRequest } from '../../domain/oidc/auth-requests';
import type { LoginUser } from '../../domain/session/users';
import type { UnitOfWork } from '../../domain/execute';
import type { SessionView } from '../../domain/session/sessions';
import type { Locale, Messages } from '../i18n';

export type Form = Record<string, string>;

/** What every page's form carries besides its own fields. */
export interface FormBase {
  locale: Locale;
  t: Messages;
  authRequest: string;
  csrf: string;
}

/** A user who signed in during this auth request, with the session that proves it. */
export interface SignedIn {
  user: LoginUser;
  sessionId: string;
}

/** The browser's sessions, and those that may answer the request without a new sign-in. */
export interface BrowserState {
  sessions: SessionView[];
  fitting: SessionView[];
}

/**
 * One request to a login page, past the gate: the pending auth request is loaded and, for a POST,
 * the CSRF token was checked.
 */
export interface Turn {
  c: Context;
  deps: Deps;
  r: AuthRequest;
  /** the submitted form (empty for a GET) */
  form: Form;
  locale: Locale;
  t: Messages;
  /** the context the login acts in: for the user, once known */
  ctx(userId?: string, orgId?: string): Ctx;
  /** a login page of this auth request */
  url(path: string): string;
  /** the 303 redirect that answers every POST */
  see(url: string): Response;
  /** the error text of the page's `error` query parameter: `csrf`, or one of the page's own codes */
  queryError(codes?: Record<string, string>): string | undefined;
  render(page: (base: FormBase) => Child, status?: number): Response;
  /**
   * The one way on after a sign-in or a step (src/login/sequence.ts): what the policy or a later step
   * still asks, else the session finishes the request. A check that has just signed the user in passes
   * its unit of work, so that the answer commits with it.
   */
  proceed(signedIn: SignedIn, after?: LoginStep, work?: UnitOfWork): Promise<Response>;
  /** work for after the step's unit of work has committed: the gate runs it before the answer goes out */
  afterCommit(fn: () => Promise<void>): void;
}

/**
 * A step of the hosted login: its page (GET) and its form (POST) at /ui/login/<path>, and when it
 * applies. `src/login/steps/index.ts` orders the steps.
 */
export interface LoginStep {
  path: string;
  /** A step the login can open with: whether it does for this request and browser (the first that does wins). */
  opens?: (r: AuthRequest, browser: BrowserState) => boolean;
  /** A step after the sign-in: whether this user still has to do it (the first that applies comes next). */
  pending?: (user: LoginUser) => boolean;
  page(turn: Turn): Promise<Response>;
  post(turn: Turn): Promise<Response>;
  /** further forms of the page, at /ui/login/<path>/<name> */
  actions?: Record<string, (turn: Turn) => Promise<Response>>;
  /** where a POST with a bad CSRF token goes; the page with `error=csrf` unless the step says otherwise */
  csrfFailure?: (turn: Turn) => string;
}
