import { and, eq, isNull, lt, or } from 'drizzle-orm';
import { createGuardrails, generateSecret, generateURI, verify } from 'otplib';
import type { Db } from '../../../db/client';
import { instances, userFactors, users } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { alreadyExists, invalidArgument, notFound } from '../../errors';
import { execute } from '../../execute';
import { newId } from '../../ids';
import { recordFactorCheck } from '../../session/factors';
import { factorOf, requireFactorRemovable, userForFactorChange } from './common';

/** RFC 6238 as authenticator apps do it: SHA-1, 6 digits, 30-second steps. */
const PERIOD = 30;
// Imported secrets (Keycloak, v1 `otpCode`) may be 10 bytes, the length Google Authenticator used.
const GUARDRAILS = createGuardrails({ MIN_SECRET_BYTES: 10 });

/**
 * The time step of a right code, within one step before or after now (clock drift), or undefined.
 * Only steps after `afterStep` count: a code that was already used is wrong.
 */
async function totpStep(secret: string, code: string, afterStep?: number | null): Promise<number | undefined> {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  try {
    const result = await verify({
      secret,
      token,
      period: PERIOD,
      epochTolerance: PERIOD,
      guardrails: GUARDRAILS,
      ...(afterStep != null ? { afterTimeStep: afterStep } : {}),
    });
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  } catch {
    return undefined; // a malformed stored secret or an afterTimeStep beyond the window: not a right code
  }
}

/**
 * Uses a code of a ready TOTP factor once: the step of the code is stored only if it is greater than
 * the last one used, in one UPDATE, so of concurrent requests with the same code exactly one wins.
 */
export async function consumeTotp(tx: Db, userId: string, code: string): Promise<boolean> {
  const [factor] = await tx
    .select({ id: userFactors.id, secret: userFactors.secret, lastUsedStep: userFactors.lastUsedStep })
    .from(userFactors)
    .where(and(eq(userFactors.userId, userId), eq(userFactors.type, 'totp'), eq(userFactors.state, 'ready')));
  if (!factor?.secret) return false;
  const step = await totpStep(factor.secret, code, factor.lastUsedStep);
  if (step === undefined) return false;
  const now = new Date();
  const [won] = await tx
    .update(userFactors)
    .set({ lastUsedStep: step, lastUsedAt: now })
    .where(
      and(
        eq(userFactors.id, factor.id),
        eq(userFactors.state, 'ready'),
        or(isNull(userFactors.lastUsedStep), lt(userFactors.lastUsedStep, step)),
      ),
    )
    .returning({ id: userFactors.id });
  return !!won;
}

export interface TotpRegistration {
  uri: string;
  secret: string;
  /** the URI as an SVG QR code, a data URL */
  qrCode: string;
}

/**
 * RegisterTOTP: a new secret in a pending TOTP factor (replacing an earlier pending one), the
 * `otpauth://` URI (issuer: the instance's name; label: the user's login name) and its QR code. A user
 * with a ready authenticator app removes it first.
 */
export async function registerTotp(ctx: Ctx, userId: string): Promise<TotpRegistration> {
  const secret = generateSecret();
  const { uri } = await execute(ctx, async (work) => {
    const user = await userForFactorChange(work, userId);
    const existing = await factorOf(work, user.id, 'totp');
    if (existing?.state === 'ready')
      throw alreadyExists('Errors.User.MFA.OTP.AlreadyReady', 'the user already has an authenticator app');
    if (existing) await work.tx.delete(userFactors).where(eq(userFactors.id, existing.id));
    await work.tx.insert(userFactors).values({
      id: newId(),
      userId: user.id,
      orgId: user.orgId,
      type: 'totp',
      state: 'pending',
      secret,
    });
    const [instance] = await work.tx
      .select({ name: instances.name })
      .from(instances)
      .where(eq(instances.id, ctx.instanceId));
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.mfa.otp.added',
      resourceOwner: user.orgId,
    });
    const label = `${user.username}@${user.primaryDomain}`;
    return { uri: generateURI({ issuer: instance?.name || 'Portcullis', label, secret, period: PERIOD }) };
  });
  // Loaded by the first registration: every process would otherwise hold it for a rare page.
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { uri, secret, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/**
 * VerifyTOTPRegistration: a right code makes the pending factor ready (and counts as used). In the
 * hosted login the code also checks the factor in the signed-in session (`sessionId`).
 */
export async function verifyTotpRegistration(
  ctx: Ctx,
  userId: string,
  code: string,
  opts: { sessionId?: string } = {},
): Promise<void> {
  await execute(ctx, async (work) => {
    const user = await userForFactorChange(work, userId);
    const factor = await factorOf(work, user.id, 'totp');
    if (!factor || factor.state !== 'pending' || !factor.secret)
      throw notFound('Errors.User.MFA.OTP.NotPending', 'no authenticator app registration is pending');
    const step = await totpStep(factor.secret, code);
    if (step === undefined) throw invalidArgument('Errors.User.MFA.OTP.InvalidCode', 'code is wrong');
    await work.tx
      .update(userFactors)
      .set({ state: 'ready', lastUsedStep: step, changedAt: new Date() })
      .where(and(eq(userFactors.id, factor.id), eq(userFactors.state, 'pending')));
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.mfa.otp.verified',
      resourceOwner: user.orgId,
    });
    if (opts.sessionId) await recordFactorCheck(work, opts.sessionId, user, 'totp');
  });
}

/** RemoveTOTP: removes the user's authenticator app (ready or pending). */
export async function removeTotp(ctx: Ctx, userId: string): Promise<void> {
  await execute(ctx, async (work) => {
    const user = await userForFactorChange(work, userId);
    const factor = await factorOf(work, user.id, 'totp');
    if (!factor) throw notFound('Errors.User.MFA.OTP.NotExisting', 'the user has no authenticator app');
    if (factor.state === 'ready') await requireFactorRemovable(work, user, 'totp');
    await work.tx.delete(userFactors).where(eq(userFactors.id, factor.id));
    // An imported secret is gone with the factor it became.
    await work.tx.update(users).set({ otpSecret: null }).where(eq(users.id, user.id));
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.mfa.otp.removed',
      resourceOwner: user.orgId,
    });
  });
}
