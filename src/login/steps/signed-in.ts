import { execute, type UnitOfWork } from '../../domain/execute';
import { firstFactorAt, recordFactorCheck } from '../../domain/session/factors';
import { addSession, rebindUserAgent, type Session } from '../../domain/session/sessions';
import { findUserByLoginName } from '../../domain/session/users';
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
    ? recordFactorCheck(work, existing.id, user, 'password')
    : (
        await addSession(work, {
          userId: user.id,
          orgId: user.orgId,
          userAgentHash: newUa,
          passwordChecked: true,
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
 * The user of a step that follows the password (password change, email verification): the request's
 * login name, with a session of this browser whose user was authenticated (password or passkey)
 * during this request. Without
 * it the step is refused, so the auth request id alone never signs anybody in.
 */
export async function signedInUser(turn: Turn): Promise<SignedIn | undefined> {
  const { c, deps, r } = turn;
  if (!r.loginName) return undefined;
  const user = await findUserByLoginName(sourceOf(deps), deps.instanceId, r.loginName, r.orgId ?? undefined);
  if (!user) return undefined;
  // A minute of slack: the request's creation time comes from the database clock, the check's from ours.
  const since = r.createdAt.getTime() - 60_000;
  const session = (await browserSessions(c, deps)).find(
    (s) => s.userId === user.id && (firstFactorAt(s)?.getTime() ?? 0) >= since,
  );
  return session ? { user, sessionId: session.id } : undefined;
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
