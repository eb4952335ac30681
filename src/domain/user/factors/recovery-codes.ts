import { randomInt } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { hashSecret, verifySecret } from '../../../crypto/secrets';
import type { Db } from '../../../db/client';
import { recoveryCodes } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { notFound } from '../../errors';
import { execute } from '../../execute';
import { newId } from '../../ids';
import { requireFactorRemovable, userForFactorChange } from './common';

const RECOVERY_CODE_COUNT = 10;
// Letters and digits that cannot be mistaken for each other when copied from paper.
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A code of 10 characters from 32 (50 bits), shown as `XXXXX-XXXXX`. */
function newRecoveryCode(): string {
  let out = '';
  for (let i = 0; i < 10; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return `${out.slice(0, 5)}-${out.slice(5)}`;
}

/** What the user typed, as it was stored: upper case, without spaces; the dash is optional. */
function normalize(code: string): string {
  const plain = code.replace(/[\s-]/g, '').toUpperCase();
  return plain.length === 10 ? `${plain.slice(0, 5)}-${plain.slice(5)}` : plain;
}

/** GenerateRecoveryCodes: ten new single-use codes (stored as keyed hashes) replace the earlier ones. */
export async function generateRecoveryCodes(ctx: Ctx, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await execute(ctx, async (work) => {
    const user = await userForFactorChange(work, userId);
    await work.tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
    await work.tx
      .insert(recoveryCodes)
      .values(codes.map((c) => ({ id: newId(), userId: user.id, codeHash: hashSecret(c) })));
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.recovery_codes.generated',
      payload: { count: codes.length },
      resourceOwner: user.orgId,
    });
  });
  return codes;
}

/** RemoveRecoveryCodes. */
export async function removeRecoveryCodes(ctx: Ctx, userId: string): Promise<void> {
  await execute(ctx, async (work) => {
    const user = await userForFactorChange(work, userId);
    const removed = await work.tx
      .delete(recoveryCodes)
      .where(eq(recoveryCodes.userId, user.id))
      .returning({ id: recoveryCodes.id });
    if (!removed.length) throw notFound('Errors.User.RecoveryCodes.NotExisting', 'the user has no recovery codes');
    await requireFactorRemovable(work, user, 'recovery_codes');
    work.push({
      aggregateType: 'user',
      aggregateId: user.id,
      type: 'user.human.recovery_codes.removed',
      resourceOwner: user.orgId,
    });
  });
}

/**
 * Uses up one recovery code: the matching unused code is marked used by one UPDATE that only an unused
 * code passes, so of two requests with the same code exactly one succeeds.
 */
export async function consumeRecoveryCode(tx: Db, userId: string, code: string): Promise<boolean> {
  const typed = normalize(code);
  if (!typed) return false;
  const unused = await tx
    .select({ id: recoveryCodes.id, codeHash: recoveryCodes.codeHash })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  const match = unused.find((r) => verifySecret(r.codeHash, typed));
  if (!match) return false;
  const [won] = await tx
    .update(recoveryCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(recoveryCodes.id, match.id), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return !!won;
}
