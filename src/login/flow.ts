import type { Context } from 'hono';
import type { Db } from '../db/client';
import { type Deps, sourceOf } from '../deps';
import type { AuthRequest } from '../domain/oidc/auth-requests';
import { mayFinish } from '../domain/oidc/may-finish';
import { sessionsOfUserAgent, type SessionView } from '../domain/session/sessions';
import { userAgentHash } from './cookies';

export const pageUrl = (page: string, id: string) => `/ui/login/${page}?authRequest=${encodeURIComponent(id)}`;

/** The browser's sessions, one per user (newest first); `db` a transaction that reads them. */
export async function browserSessions(c: Context, deps: Deps, db: Db = deps.database.db): Promise<SessionView[]> {
  const ua = userAgentHash(c);
  if (!ua) return [];
  const seen = new Set<string>();
  return (await sessionsOfUserAgent(db, ua)).filter((s) => {
    if (!s.userId || seen.has(s.userId)) return false;
    seen.add(s.userId);
    return true;
  });
}

/** The sessions that may answer the request without a new sign-in (domain/oidc/may-finish.ts, with the policy). */
export async function fittingSessions(deps: Deps, sessions: SessionView[], r: AuthRequest): Promise<SessionView[]> {
  const fits = await Promise.all(sessions.map((s) => mayFinish(sourceOf(deps), deps.instanceId, s, r, 'reuse')));
  return sessions.filter((_, i) => fits[i]);
}
