import { and, eq, sql } from 'drizzle-orm';
import { type FactorChecks, type SessionFactor, sessions } from '../../db/schema/index';
import { notFound } from '../errors';
import type { UnitOfWork } from '../execute';
import type { Session } from './sessions';
import { live } from './live';
import { amrOf, type ChallengeFactor, FACTORS } from '../sign-in/factors';

export type { FactorChecks, SessionFactor };

/** What a factor check proved beyond "the factor was presented" (WebAuthn only). */
export interface FactorDetail {
  /** the identity provider of an external sign-in */
  idpId?: string;
  /** the authenticator verified the user (PIN or biometrics): a passkey then is a whole sign-in */
  userVerified?: boolean;
  /** the credential may be synced between devices (a software key rather than a hardware key) */
  synced?: boolean;
  /** the hosted login's auth request this first factor signed the user in for (its later steps find it) */
  authRequest?: string;
}

/** The session's amr is derived from the factor declarations (src/domain/sign-in/factors.ts). */
export { amrOf };

/**
 * When the session's user was last authenticated by a first factor: a password check, a passkey
 * that verified the user (a passwordless sign-in), or a sign-in at an external identity provider.
 * Undefined for a session that names a user only.
 */
export function firstFactorAt(s: {
  passwordCheckedAt: Date | null;
  factorChecks?: FactorChecks | null;
}): Date | undefined {
  const times = [s.passwordCheckedAt?.getTime()];
  const passkey = s.factorChecks?.webAuthN;
  if (passkey?.userVerified) times.push(Date.parse(passkey.at));
  const external = s.factorChecks?.idpIntent;
  if (external) times.push(Date.parse(external.at));
  const latest = Math.max(...times.filter((t): t is number => t !== undefined && !Number.isNaN(t)));
  return Number.isFinite(latest) ? new Date(latest) : undefined;
}

/**
 * Records a successful factor check on a live session, in the caller's unit of work: the factor's
 * time, the session's `amr` recomputed from all its checks, and the event `session.<factor>.checked`.
 * The session must belong to `user` (or name no user yet, and then it does from now on).
 */
export async function recordFactorCheck(
  work: UnitOfWork,
  sessionId: string,
  user: { id: string; orgId: string },
  factor: SessionFactor,
  detail: FactorDetail = {},
): Promise<Session> {
  const now = new Date();
  await work.load('session', sessionId);
  const [current] = await work.tx
    .select({ factorChecks: sessions.factorChecks, userId: sessions.userId })
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), live()))
    .for('update');
  if (!current || (current.userId && current.userId !== user.id))
    throw notFound('Errors.Session.NotFound', 'session not found');
  const checks: FactorChecks = { ...current.factorChecks, [factor]: { at: now.toISOString(), ...detail } };
  const [row] = await work.tx
    .update(sessions)
    .set({
      userId: user.id,
      orgId: user.orgId,
      factorChecks: checks,
      amr: amrOf(checks),
      changedAt: now,
      ...(factor === 'password' ? { passwordCheckedAt: now } : {}),
    })
    .where(eq(sessions.id, sessionId))
    .returning();
  work.push({
    aggregateType: 'session',
    aggregateId: sessionId,
    type: FACTORS[factor].event,
    payload: { userId: user.id, ...eventDetail(detail) },
    resourceOwner: user.orgId,
  });
  return row;
}

/** What the event says of a check: the auth request it was for is the login's bookkeeping, not the check's. */
function eventDetail({ authRequest: _, ...rest }: FactorDetail) {
  return rest;
}

/** Drops a session's open challenge of one kind (answered or replaced). */
export function withoutChallenge(kind: ChallengeFactor) {
  return sql`${sessions.challenges} - ${kind}`;
}
