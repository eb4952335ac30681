import type { Ctx } from '../context';
import { getSession } from './sessions';
import { requireLoginUiPermission } from './login-ui-permission';

/**
 * The sessions rules of the account page: a signed-in user lists and ends their own sessions without
 * any permission; everything else (another user's sessions, all sessions) stays the login UI's, with
 * `user.write` on the instance. A session that is not the caller's is refused the same way whether or
 * not it exists, so its id tells nothing.
 */
export function requireOwnSessionsOrLoginUi(ctx: Ctx, userId: string | undefined): void {
  if (userId && ctx.principal.userId === userId) return;
  requireLoginUiPermission(ctx);
}

export async function requireOwnSessionOrLoginUi(ctx: Ctx, sessionId: string): Promise<void> {
  if (ctx.principal.canInstance('user.write')) return;
  const s = sessionId ? await getSession(ctx.db, sessionId) : undefined;
  requireOwnSessionsOrLoginUi(ctx, s?.userId ?? undefined);
}
