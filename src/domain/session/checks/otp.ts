import { randomInt } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { hashSecret, verifySecret } from '../../../crypto/secrets';
import { instances, sessions, userFactors, users } from '../../../db/schema/index';
import type { Db } from '../../../db/client';
import { enqueueOtpMessage } from '../../../notify/otp';
import type { Ctx } from '../../context';
import { LimitError, failedPrecondition, invalidArgument } from '../../errors';
import type { UnitOfWork } from '../../execute';
import { recordFactorCheck, withoutChallenge } from '../factors';
import { live } from '../live';
import { type ChallengeFactor, type CodeFactor, FACTORS } from '../../sign-in/factors';
import type { Session } from '../sessions';
import type { LoginUser } from '../users';
import { type AfterCheck, checkSecondFactor, theSession } from './otp-lockout';

/** The codes sent by email or SMS (both a challenge the session opens and a code the user types). */
export type OtpKind = Extract<ChallengeFactor, CodeFactor>;

/** A code by email or SMS is valid for five minutes. */
const OTP_LIFETIME_SECONDS = 5 * 60;
/** A new code for the same session at most this often. */
const OTP_RESEND_SECONDS = 30;

/** How the caller wants the code: sent by Portcullis, or returned for its own delivery. */
export type OtpDelivery = { send: true } | { return: true };

/**
 * Opens (or replaces) the session's email or SMS challenge: a six-digit code, stored as a keyed hash
 * with its expiry, sent through the outbox to the user's verified address or phone, or returned.
 * The user must have the factor ready. At most one new code per session every 30 seconds.
 */
export async function openOtpChallenge(
  work: UnitOfWork,
  sessionId: string,
  user: LoginUser,
  kind: OtpKind,
  delivery: OtpDelivery,
): Promise<string | undefined> {
  const type = FACTORS[kind].row;
  const [row] = await work.tx
    .select({
      email: users.email,
      emailVerified: users.emailVerified,
      phone: users.phone,
      phoneVerified: users.phoneVerified,
    })
    .from(userFactors)
    .innerJoin(users, eq(users.id, userFactors.userId))
    .where(and(eq(userFactors.userId, user.id), eq(userFactors.type, type), eq(userFactors.state, 'ready')));
  const recipient = kind === 'otpEmail' ? row?.emailVerified && row.email : row?.phoneVerified && row.phone;
  if (!row || !recipient)
    throw failedPrecondition(
      'Errors.User.MFA.OTP.NotReady',
      `the user has no ${kind === 'otpEmail' ? 'email' : 'SMS'} codes set up`,
    );
  await work.load('session', sessionId);
  const [session] = await work.tx
    .select({ challenges: sessions.challenges })
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), live()))
    .for('update');
  if (!session) throw invalidArgument('Errors.Session.NotFound', 'session not found');
  const open = session.challenges[kind];
  if (open) {
    const issuedAt = Date.parse(open.expiresAt) - OTP_LIFETIME_SECONDS * 1000;
    const wait = Math.ceil((issuedAt + OTP_RESEND_SECONDS * 1000 - Date.now()) / 1000);
    if (wait > 0)
      throw new LimitError('Errors.Session.OTP.TooSoon', `a new code can be requested in ${wait} seconds`, wait);
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const expiresAt = new Date(Date.now() + OTP_LIFETIME_SECONDS * 1000);
  const challenge = { codeHash: hashSecret(code), expiresAt: expiresAt.toISOString() };
  await work.tx
    .update(sessions)
    .set({ challenges: sql`${sessions.challenges} || ${JSON.stringify({ [kind]: challenge })}::jsonb` })
    .where(eq(sessions.id, sessionId));
  if ('send' in delivery) {
    const [instance] = await work.tx
      .select({ name: instances.name })
      .from(instances)
      .where(eq(instances.id, work.ctx.instanceId));
    await enqueueOtpMessage(work.tx, {
      kind: kind === 'otpEmail' ? 'OTP_EMAIL' : 'OTP_SMS',
      userId: user.id,
      recipient,
      code,
      expiresAt,
      issuer: instance?.name || 'Portcullis',
    });
  }
  work.push({
    aggregateType: 'user',
    aggregateId: user.id,
    type: 'user.human.otp.code.added',
    payload: { channel: kind === 'otpEmail' ? 'email' : 'sms', sessionId, codeReturned: 'return' in delivery },
    resourceOwner: user.orgId,
  });
  return 'return' in delivery ? code : undefined;
}

/**
 * checks.otp_email / checks.otp_sms: the code of the session's open challenge, before it expires. The
 * challenge is removed by the same UPDATE that finds it unchanged, so a code works once; a wrong code
 * counts against the user (the challenge stays, so a typo can be corrected within the lifetime).
 */
export function checkOtp<T = Session>(
  ctx: Ctx,
  sessionId: string,
  user: LoginUser,
  kind: OtpKind,
  code: string,
  then: AfterCheck<T> = theSession as AfterCheck<T>,
): Promise<T> {
  return checkSecondFactor(
    ctx,
    user,
    FACTORS[kind].lockout,
    FACTORS[kind].field,
    async (work) => {
      const [row] = await work.tx
        .select({ challenges: sessions.challenges })
        .from(sessions)
        .where(and(eq(sessions.id, sessionId), live()));
      const open = row?.challenges[kind];
      if (!open || Date.parse(open.expiresAt) < Date.now()) return false;
      if (!verifySecret(open.codeHash, code.replace(/\s/g, ''))) return false;
      const [used] = await work.tx
        .update(sessions)
        .set({ challenges: withoutChallenge(kind) })
        .where(
          and(eq(sessions.id, sessionId), sql`${sessions.challenges} -> ${kind} ->> 'codeHash' = ${open.codeHash}`),
        )
        .returning({ id: sessions.id });
      return !!used;
    },
    (work) => recordFactorCheck(work, sessionId, user, kind),
    then,
  );
}

/** Whether the session has an unexpired email or SMS code open. */
export async function hasLiveOtpChallenge(db: Db, sessionId: string, kind: OtpKind): Promise<boolean> {
  const [row] = await db.select({ challenges: sessions.challenges }).from(sessions).where(eq(sessions.id, sessionId));
  const open = row?.challenges[kind];
  return !!open && Date.parse(open.expiresAt) > Date.now();
}
