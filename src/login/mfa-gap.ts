import { type PolicyGap, sessionPolicyGap } from '../domain/session/policy-gap';
import type { Db } from '../db/client';
import { getSession, type Session } from '../domain/session/sessions';
import { CHECK_PATHS } from './steps/mfa-paths';
import type { SignedIn, Turn } from './steps/types';

/** The page that fills a gap the login policy finds in the session (domain/session/policy-gap.ts). */
export function gapPage(gap: PolicyGap): string | undefined {
  switch (gap.missing) {
    case 'none':
      return undefined;
    case 'first-factor':
      return gap.reason === 'passkey-required' ? 'passkey' : 'password';
    case 'second-factor':
      // one factor: straight to it; several: the user chooses
      return gap.factors.length === 1 ? CHECK_PATHS[gap.factors[0]] : 'mfa';
    case 'factor-setup':
      return 'mfa-setup';
  }
}

/**
 * What the login policy still asks of the signed-in user's session for this request. A step that has
 * just written the session in its unit of work passes that transaction and the row it wrote (its
 * user was read in the same request, and is not read again).
 */
export async function gapOf(
  turn: Turn,
  signedIn: SignedIn,
  db: Db = turn.deps.database.db,
  written?: Session,
): Promise<PolicyGap> {
  const { deps, r } = turn;
  const session = written ?? (await getSession(db, signedIn.sessionId));
  if (!session) return { missing: 'first-factor', reason: 'missing' };
  const src = { db, runtime: deps.runtime };
  return sessionPolicyGap(src, deps.instanceId, session, r, written ? signedIn.user : undefined);
}
