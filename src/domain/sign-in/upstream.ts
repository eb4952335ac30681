import type { Ctx } from '../context';
import { execute, type UnitOfWork } from '../execute';
import {
  type ExternalSignIn,
  linkCandidate,
  linkNeedsCredential,
  profileFromUpstream,
  requireReach,
  updateFromUpstream,
  useForSessionIn,
} from '../idp/external-sign-in';
import { setAuthRequestLoginNameIn } from '../oidc/auth-requests';
import { maySignIn, UPSTREAM_SIGN_IN } from '../session/may-sign-in';
import { addSession, rebindUserAgent, type SessionOrigin, sessionsOfUserAgent } from '../session/sessions';
import { findUserById, type LoginUser, loginNameOf } from '../session/users';
import type { Db } from '../../db/client';

/** What comes after a sign-in at an upstream identity provider, as its provider's options decide. */
export type UpstreamNext =
  /** the upstream account is linked: its user signs in */
  | { next: 'sign-in'; userId: string }
  /** auto-linking found an account: the user confirms it (with its password when linkNeedsCredential) */
  | { next: 'confirm-link'; user: LoginUser; withPassword: boolean }
  /** a new account, at once (just-in-time creation and a complete profile) */
  | { next: 'create-now'; values: NewAccount }
  /** a new account, on a form filled with the upstream's data */
  | { next: 'create-form'; values: NewAccount }
  /** no account to propose: the user signs in here and the account is linked afterwards */
  | { next: 'link-later' }
  /** the provider neither creates nor links accounts */
  | { next: 'no-account' };

export interface NewAccount {
  givenName: string;
  familyName: string;
  email: string;
  username: string;
}

/**
 * The one place the upstream sign-in's decisions are taken: link, propose an account, create one (at
 * once or on a form), link later, or none of these.
 */
export async function decideUpstream(db: Db, s: ExternalSignIn, requestOrgId: string | null): Promise<UpstreamNext> {
  if (s.linkedUserId) return { next: 'sign-in', userId: s.linkedUserId };
  const candidate = await linkCandidate(db, s, requestOrgId);
  if (candidate) return { next: 'confirm-link', user: candidate, withPassword: linkNeedsCredential(s) };
  const { options } = s.provider;
  if (options.isCreationAllowed) {
    const { values, missing } = profileFromUpstream(s.external);
    return { next: options.isAutoCreation && missing.length === 0 ? 'create-now' : 'create-form', values };
  }
  return { next: options.isLinkingAllowed ? 'link-later' : 'no-account' };
}

/** The browser the sign-in happens in. */
export interface UpstreamBrowser {
  /** the hash of its user-agent cookie now (its sessions), if it has one */
  userAgentHash: string | undefined;
  /** the hash of the new cookie value its sessions move to (no session fixation) */
  newUserAgentHash: string;
  origin: SessionOrigin;
}

export interface UpstreamSignInInput<T> {
  /** acts for the login: the profile update */
  ctx: Ctx;
  /** acts as the user: the sign-in's writes */
  userCtx: (user: LoginUser) => Ctx;
  s: ExternalSignIn;
  request: { id: string; orgId: string | null };
  /** the linked user (linked just now, when the account was created or confirmed) */
  userId: string;
  browser: UpstreamBrowser;
  /** goes on in the sign-in's unit of work with the signed-in user (the hosted login finishes there) */
  next: (work: UnitOfWork, signedIn: { user: LoginUser; sessionId: string }) => Promise<T>;
}

export type UpstreamSignIn<T> = { ok: true; value: T } | { ok: false; reason: 'locked' | 'other-org' };

/**
 * Signs the upstream account's user in: the user must be one who may sign in (the one rule,
 * src/domain/session/may-sign-in.ts) of the request's organization and within the provider's reach;
 * the profile follows the upstream (auto-update, a command of its own); then, in one unit of work as
 * the password's, this browser's sessions move to the new cookie, the browser's session of the user
 * (or a new one) records the sign-in as its first factor and uses the intent up, the request remembers
 * the login name, and `next` goes on (the hosted login finishes there). A second use of the intent
 * finds it used and commits nothing.
 */
export async function signInWithUpstream<T>(input: UpstreamSignInInput<T>): Promise<UpstreamSignIn<T>> {
  const { ctx, s, request, browser, next } = input;
  const user = await findUserById(ctx.db, input.userId);
  if (!user || !maySignIn(user, UPSTREAM_SIGN_IN)) return { ok: false, reason: 'locked' };
  // a request limited to one organization is answered only by its users
  if (request.orgId && user.orgId !== request.orgId) return { ok: false, reason: 'other-org' };
  await requireReach(ctx.db, s, user.id);
  await updateFromUpstream(ctx, s, user.id);
  return execute(input.userCtx(user), async (work) => {
    const { tx } = work;
    const existing = browser.userAgentHash
      ? (await sessionsOfUserAgent(tx, browser.userAgentHash)).find((x) => x.userId === user.id)
      : undefined;
    await rebindUserAgent(tx, browser.userAgentHash, browser.newUserAgentHash);
    const sessionId =
      existing?.id ??
      (
        await addSession(work, {
          userId: user.id,
          orgId: user.orgId,
          userAgentHash: browser.newUserAgentHash,
          ...browser.origin,
        })
      ).id;
    await useForSessionIn(work, s, sessionId, user);
    await setAuthRequestLoginNameIn(work, request.id, loginNameOf(user));
    const signedIn = { user: (await findUserById(tx, user.id)) ?? user, sessionId };
    return { ok: true as const, value: await next(work, signedIn) };
  });
}
