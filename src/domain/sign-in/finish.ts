import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instances, orgs, sessions, userFactors, users } from '../../db/schema/index';
import { type AuthRequest, linkSession } from '../oidc/auth-requests';
import { type FinishMode, type FinishRefusal, finishRefusal } from '../oidc/may-finish';
import type { Ctx } from '../context';
import { execute, type UnitOfWork } from '../execute';
import { INSTANCE_SETTINGS_KEY, type LoginPolicy, withDefaults } from '../policy/login-policy';
import { type PolicyReader, userLoginPolicy } from '../policy/user-login-policy';
import { live } from '../session/live';
import { hasRecoveryCodes, type PolicyGap, policyGap } from '../session/policy-gap';
import type { Session } from '../session/sessions';

/** Why a session may not finish: the rule's refusal, and under the login policy what it still misses. */
export interface Refused {
  ok: false;
  refusal: FinishRefusal | 'gone';
  gap?: PolicyGap;
}
export type Finished<T> = { ok: true; session: Session; value: T } | Refused;

/** The user's row as the rule reads it, locked against a concurrent change until the link commits. */
async function lockedUser(tx: Db, userId: string) {
  const [user] = await tx
    .select({
      id: users.id,
      orgId: users.orgId,
      state: users.state,
      mfaInitSkippedAt: users.mfaInitSkippedAt,
      passwordChangeRequired: users.passwordChangeRequired,
    })
    .from(users)
    .where(eq(users.id, userId))
    .for('share');
  return user;
}

/**
 * The user's ready factors, with every factor row locked: a factor that becomes ready (or is removed)
 * concurrently is waited for and then seen, never missed. Locking all rows, not only ready ones, is
 * what makes PostgreSQL wait for a row whose state a concurrent command is changing.
 */
async function lockedReadyFactors(tx: Db, userId: string) {
  const rows = await tx
    .select({
      id: userFactors.id,
      type: userFactors.type,
      passwordless: userFactors.passwordless,
      state: userFactors.state,
    })
    .from(userFactors)
    .where(eq(userFactors.userId, userId))
    .for('share');
  return rows.filter((r) => r.state === 'ready');
}

/** The policies read in the transaction, their rows locked: a policy change waits for the link or is seen by it. */
const LOCKED_POLICY: PolicyReader = {
  async instance(tx, instanceId): Promise<LoginPolicy> {
    const [row] = await tx
      .select({ settings: instances.settings })
      .from(instances)
      .where(eq(instances.id, instanceId))
      .for('share');
    const settings = row?.settings as unknown as Record<string, unknown> | undefined;
    return withDefaults(settings?.[INSTANCE_SETTINGS_KEY]);
  },
  async org(tx, orgId): Promise<LoginPolicy | null> {
    const [row] = await tx.select({ policy: orgs.loginPolicy }).from(orgs).where(eq(orgs.id, orgId)).for('share');
    return row?.policy ? withDefaults(row.policy) : null;
  },
};

/**
 * The one way a sign-in finishes: in the caller's unit of work, the session, its user, the user's
 * factors and the login policies are read again with their rows locked, the finish rule and the
 * policy gap are checked on what was read, and only then `link` runs (links the session to the auth
 * request, or approves a device) — so what was checked is what commits. A concurrent request that
 * terminates the session, changes the user's factors or tightens the policy either waits for this
 * commit or is seen by the check; none can slip a weaker session past it.
 *
 * Lock order — user, factors, policies, session — is the one the password and code checks use
 * (user row first), so a check that finishes in its own transaction already holds what it needs.
 */
export async function finishIn<T>(
  work: UnitOfWork,
  sessionId: string,
  request: AuthRequest | null,
  mode: FinishMode,
  link: (session: Session) => Promise<T>,
): Promise<Finished<T>> {
  const { tx } = work;
  const [seen] = await tx
    .select({ userId: sessions.userId })
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), live()));
  if (!seen) return { ok: false, refusal: 'gone' };
  const user = seen.userId ? await lockedUser(tx, seen.userId) : undefined;
  const factors = user ? await lockedReadyFactors(tx, user.id) : [];
  const policy = user
    ? await userLoginPolicy({ db: tx, runtime: work.ctx.runtime }, work.ctx.instanceId, user, LOCKED_POLICY)
    : undefined;
  const [session] = await tx
    .select()
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), live()))
    .for('update');
  if (!session) return { ok: false, refusal: 'gone' };
  // The session's user is set once; one that changed in between is read again by a retry, never mixed.
  const sameUser = user && session.userId === user.id ? user : undefined;
  const refusal = finishRefusal(
    {
      ...session,
      userState: sameUser?.state ?? null,
      passwordChangeRequired: sameUser?.passwordChangeRequired ?? null,
    },
    request ?? NO_REQUEST,
    mode,
  );
  if (refusal) return { ok: false, refusal };
  if (!sameUser || !policy) return { ok: false, refusal: 'not_authenticated' };
  const gap = policyGap({
    session,
    factors,
    hasRecoveryCodes: await hasRecoveryCodes(tx, sameUser.id),
    mfaInitSkippedAt: sameUser.mfaInitSkippedAt,
    policy,
    request,
  });
  if (gap.missing !== 'none') return { ok: false, refusal: 'policy', gap };
  return { ok: true, session, value: await link(session) };
}

/** A device approval answers no auth request: the rule's request-bound checks have nothing to compare. */
const NO_REQUEST = { orgId: null, hintUserId: null, maxAge: null } as unknown as AuthRequest;

/**
 * Links the session to the auth request if it may finish it, in the caller's unit of work: the
 * hosted login (after the check that signed the user in, in that check's transaction), a session
 * reused for a request, and the session API's CreateCallback.
 */
export function finishAuthRequestIn(
  work: UnitOfWork,
  request: AuthRequest,
  sessionId: string,
  mode: FinishMode,
  callbackKeyHash: string | null = null,
): Promise<Finished<AuthRequest>> {
  return finishIn(work, sessionId, request, mode, () => linkSession(work, request.id, sessionId, callbackKeyHash));
}

/** finishAuthRequestIn in a transaction of its own. */
export function finishAuthRequest(
  ctx: Ctx,
  request: AuthRequest,
  sessionId: string,
  mode: FinishMode,
  callbackKeyHash: string | null = null,
): Promise<Finished<AuthRequest>> {
  return execute(ctx, (work) => finishAuthRequestIn(work, request, sessionId, mode, callbackKeyHash));
}
