import type { Context } from 'hono';
import type { Deps } from '../deps';
import { mayFinish } from '../domain/oidc/may-finish';
import type { AuthRequest } from '../domain/oidc/auth-requests';
import { linkSessionToAuthRequest } from '../domain/oidc/auth-requests';
import { sessionsOfUserAgent, type SessionView } from '../domain/session/sessions';
import { oidcCtx } from '../oidc/env';
import { userAgentHash } from './cookies';

export const callbackUrl = (id: string) => `/oauth/v2/authorize/callback?id=${encodeURIComponent(id)}`;
export const pageUrl = (page: string, id: string) => `/ui/login/${page}?authRequest=${encodeURIComponent(id)}`;

/** The browser's sessions, one per user (newest first). */
export async function browserSessions(c: Context, deps: Deps): Promise<SessionView[]> {
  const ua = userAgentHash(c);
  if (!ua) return [];
  const seen = new Set<string>();
  return (await sessionsOfUserAgent(deps.database.db, ua)).filter((s) => {
    if (!s.userId || seen.has(s.userId)) return false;
    seen.add(s.userId);
    return true;
  });
}

/**
 * Where an interactive request goes next (§2.2): create → registration; login → login page;
 * select_account → account list; otherwise one fitting session answers at once, several let the user
 * choose, none asks to sign in.
 */
export async function nextStep(c: Context, deps: Deps, r: AuthRequest): Promise<string> {
  if (r.prompt.includes('create')) return pageUrl('register', r.id);
  if (r.prompt.includes('login')) return pageUrl('login', r.id);
  const sessions = await browserSessions(c, deps);
  if (r.prompt.includes('select_account') && sessions.length > 0) return pageUrl('accounts', r.id);
  const fitting = sessions.filter((s) => mayFinish(s, r, 'reuse'));
  if (fitting.length === 1 && !r.prompt.includes('select_account')) {
    await linkSessionToAuthRequest(oidcCtx(deps, 'login'), r.id, fitting[0].id);
    return callbackUrl(r.id);
  }
  if (fitting.length > 1) return pageUrl('accounts', r.id);
  return pageUrl('login', r.id);
}
