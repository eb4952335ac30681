import { execute, type UnitOfWork } from '../../domain/execute';
import { finishRefusal } from '../../domain/oidc/may-finish';
import { recordFactorCheck } from '../../domain/session/factors';
import { signedInFor } from '../../domain/sign-in/factors';
import { addSession, rebindUserAgent, type Session } from '../../domain/session/sessions';
import { findUserById, findUserByLoginName } from '../../domain/session/users';
import { newUserAgent, setUserAgent, userAgentHash } from '../cookies';
import { browserSessions } from '../flow';
import { sessionOrigin } from '../session-origin';
import type { SignedIn, Turn } from './types';
import { sourceOf } from '../../deps';

/**
 * After a successful password check, in its unit of work: this browser's sessions moved to the new
 * cookie value whose hash is `newUa` (sent by the caller once this commits), and the user's session
 * updated or created. Returns the session as written.
 */
export async function startSessionIn(
  turn: Turn,
  work: UnitOfWork,
  user: { id: string; orgId: string },
  newUa: string,
): Promise<Session> {
  const { c, deps } = turn;
  const existing = (await browserSessions(c, deps, work.tx)).find((s) => s.userId === user.id);
  await rebindUserAgent(work.tx, userAgentHash(c), newUa);
  return existing
    ? recordFactorCheck(work, existing.id, user, 'password', { authRequest: turn.r.id })
    : (
        await addSession(work, {
          userId: user.id,
          orgId: user.orgId,
          userAgentHash: newUa,
          passwordChecked: true,
          signedInFor: turn.r.id,
          ...sessionOrigin(turn),
        })
      ).session;
}

/** startSessionIn in a transaction of its own, and the new cookie sent. Returns the session id. */
export async function startSession(turn: Turn, user: { id: string; orgId: string }): Promise<string> {
  const ua = newUserAgent();
  const session = await execute(turn.ctx(user.id, user.orgId), (work) => startSessionIn(turn, work, user, ua.hash));
  setUserAgent(turn.c, ua.value);
  return session.id;
}

/**
 * The user of a step that follows the sign-in (a second factor, a password change, email
 * verification): the user of this browser's session whose first factor — a password, a passkey that
 * verified the user, or a sign-in upstream — was checked for this very auth request. The sign-in
 * records the request with the check, so the user is carried from the sign-in, never looked up again by
 * login name or guessed from times. Otherwise a session signed in earlier that may be reused for this
 * request but for what the login policy asks (src/login/sequence.ts continues it with its user's login
 * name). Without either the step is refused, so the auth request id alone never signs anybody in.
 */
export async function signedInUser(turn: Turn): Promise<SignedIn | undefined> {
  const { c, deps, r } = turn;
  const sessions = await browserSessions(c, deps);
  const fresh = sessions.find((s) => signedInFor(s.factorChecks, r.id));
  if (fresh?.userId) {
    const user = await findUserById(deps.database.db, fresh.userId);
    return user ? { user, sessionId: fresh.id } : undefined;
  }
  if (!r.loginName) return undefined;
  const user = await findUserByLoginName(sourceOf(deps), deps.instanceId, r.loginName, r.orgId ?? undefined);
  const reused = user && sessions.find((s) => s.userId === user.id && !finishRefusal(s, r, 'reuse'));
  return user && reused ? { user, sessionId: reused.id } : undefined;
}

/**
 * A step after the password runs only for the user signed in during this request; without one the
 * browser goes back to `elsewhere` (the password or the login name page).
 */
export async function withSignedInUser(
  turn: Turn,
  elsewhere: string,
  fn: (signedIn: SignedIn) => Promise<Response>,
): Promise<Response> {
  const signedIn = await signedInUser(turn);
  return signedIn ? fn(signedIn) : turn.see(turn.url(elsewhere));
}
