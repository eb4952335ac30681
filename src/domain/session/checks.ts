import type { Ctx } from '../context';
import { failedPrecondition, invalidArgument, notFound } from '../errors';
import { requireLoginUiPermission } from './login-ui-permission';
import { checkPassword } from './password-check';
import { createSession, getSession, type Session, setSessionPasswordChecked } from './sessions';
import { findUserById, findUserByLoginName, type LoginUser } from './users';

/** What a custom login UI asks a session to prove: who the user is, and (optionally) their password. */
export interface SessionChecks {
  user?: { userId?: string; loginName?: string };
  password?: string;
}

async function resolveUser(ctx: Ctx, user: SessionChecks['user']): Promise<LoginUser | undefined> {
  if (!user) return undefined;
  const found = user.userId
    ? await findUserById(ctx.db, user.userId)
    : user.loginName
      ? await findUserByLoginName(ctx.db, ctx.instanceId, user.loginName)
      : undefined;
  if (!user.userId && !user.loginName)
    throw invalidArgument('Errors.Session.User.Missing', 'checks.user needs user_id or login_name');
  if (!found || found.state === 'REMOVED') throw notFound('Errors.User.NotFound', 'user not found');
  return found;
}

async function runPassword(ctx: Ctx, user: LoginUser | undefined, password: string): Promise<LoginUser> {
  if (!user) throw invalidArgument('Errors.Session.User.Missing', 'checks.password needs checks.user');
  const result = await checkPassword(ctx, user, password);
  if (!result.ok) {
    if (result.reason === 'locked') throw failedPrecondition('Errors.User.Locked', 'the user is locked');
    throw invalidArgument('Errors.User.Password.Invalid', 'checks.password: the password is wrong');
  }
  return result.user;
}

/** A new session with the checks asked for; a failing password check creates no session. */
export async function createSessionWithChecks(ctx: Ctx, checks: SessionChecks, lifetimeSeconds?: number) {
  requireLoginUiPermission(ctx);
  let user = await resolveUser(ctx, checks.user);
  if (checks.password !== undefined) user = await runPassword(ctx, user, checks.password);
  return createSession(ctx, {
    userId: user?.id,
    orgId: user?.orgId,
    passwordChecked: checks.password !== undefined,
    lifetimeSeconds,
  });
}

/** Adds checks to a session: its token proves ownership; the user of a session cannot change once set. */
export async function setSessionChecks(
  ctx: Ctx,
  sessionId: string,
  token: string,
  checks: SessionChecks,
): Promise<Session> {
  requireLoginUiPermission(ctx);
  const session = await getSession(ctx.db, sessionId, token);
  if (!session) throw notFound('Errors.Session.NotFound', 'session not found');
  let user =
    (await resolveUser(ctx, checks.user)) ?? (session.userId ? await findUserById(ctx.db, session.userId) : undefined);
  if (user && session.userId && user.id !== session.userId)
    throw invalidArgument('Errors.Session.User.Changed', 'checks.user differs from the session user');
  if (checks.password === undefined) {
    if (!user) return session;
    return { ...session, userId: user.id, orgId: user.orgId };
  }
  user = await runPassword(ctx, user, checks.password);
  return setSessionPasswordChecked(ctx, sessionId, user);
}
