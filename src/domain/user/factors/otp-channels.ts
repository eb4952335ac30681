import { eq } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { userFactors, users } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { alreadyExists, failedPrecondition, notFound } from '../../errors';
import { execute } from '../../execute';
import { newId } from '../../ids';
import { factorOf, requireFactorRemovable, userForFactorChange } from './common';

const CHANNELS = {
  otp_email: {
    added: 'user.human.otp.email.added',
    removed: 'user.human.otp.email.removed',
    name: 'email',
  },
  otp_sms: {
    added: 'user.human.otp.sms.added',
    removed: 'user.human.otp.sms.removed',
    name: 'SMS',
  },
} as const;

export type OtpChannel = keyof typeof CHANNELS;

/**
 * AddOTPEmail / AddOTPSMS: one-time codes by email (to the verified address) or SMS (to the verified
 * phone) become a second factor of the user. Ready at once: the address was proven when it was verified.
 */
export async function addOtpChannel(ctx: Ctx, userId: string, type: OtpChannel): Promise<void> {
  await execute(ctx, async (work) => {
    const user = await userForFactorChange(work, userId);
    if (type === 'otp_email' && !(user.email && user.emailVerified))
      throw failedPrecondition('Errors.User.Email.NotVerified', 'one-time codes by email need a verified email');
    if (type === 'otp_sms' && !(user.phone && user.phoneVerified))
      throw failedPrecondition('Errors.User.Phone.NotVerified', 'one-time codes by SMS need a verified phone');
    if (await factorOf(work, user.id, type))
      throw alreadyExists('Errors.User.MFA.OTP.AlreadyExisting', `one-time codes by ${CHANNELS[type].name} are on`);
    await work.tx.insert(userFactors).values({ id: newId(), userId: user.id, orgId: user.orgId, type, state: 'ready' });
    work.push({ aggregateType: 'user', aggregateId: user.id, type: CHANNELS[type].added, resourceOwner: user.orgId });
  });
}

/** RemoveOTPEmail / RemoveOTPSMS. */
export async function removeOtpChannel(ctx: Ctx, userId: string, type: OtpChannel): Promise<void> {
  await execute(ctx, async (work) => {
    const user = await userForFactorChange(work, userId);
    const factor = await factorOf(work, user.id, type);
    if (!factor) throw notFound('Errors.User.MFA.OTP.NotExisting', `one-time codes by ${CHANNELS[type].name} are off`);
    await requireFactorRemovable(work, user, type);
    await work.tx.delete(userFactors).where(eq(userFactors.id, factor.id));
    work.push({ aggregateType: 'user', aggregateId: user.id, type: CHANNELS[type].removed, resourceOwner: user.orgId });
  });
}

/** Where codes of the channel would go: the verified email address or phone number, if there is one. */
export async function verifiedTarget(db: Db, userId: string, type: OtpChannel): Promise<string | undefined> {
  const [u] = await db
    .select({
      email: users.email,
      emailVerified: users.emailVerified,
      phone: users.phone,
      phoneVerified: users.phoneVerified,
    })
    .from(users)
    .where(eq(users.id, userId));
  if (!u) return undefined;
  return (type === 'otp_email' ? u.emailVerified && u.email : u.phoneVerified && u.phone) || undefined;
}
