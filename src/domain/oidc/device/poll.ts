import { and, eq } from 'drizzle-orm';
import { sha256Hex } from '../../../crypto/random';
import { deviceAuthorizations } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { execute } from '../../execute';
import { findGrant, type Grant } from '../grants';
import { accessDenied, authorizationPending, expiredToken, invalidGrant, slowDown } from '../oauth-errors';

/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval the device must keep. */
const SLOW_DOWN_STEP_S = 5;
/**
 * A poll counts as too fast when it comes more than this much earlier than the interval allows: a
 * request sent on time can arrive early when the one before it was delayed on the way.
 */
const JITTER_MS = 1000;

/**
 * One poll of the token endpoint with a device code (RFC 8628 §3.4, §3.5): the code is the client's,
 * unused and unexpired; a poll sooner than the interval is slow_down (and the interval grows); until
 * the user answers it is authorization_pending; a denial is access_denied. An approved code answers
 * once: the first poll that finds it approved marks it used and gets the grant, any later one
 * invalid_grant.
 */
export async function redeemDeviceCode(ctx: Ctx, clientId: string, deviceCode: string): Promise<Grant> {
  const [row] = await ctx.db
    .select()
    .from(deviceAuthorizations)
    .where(eq(deviceAuthorizations.deviceCodeHash, sha256Hex(deviceCode)));
  if (!row || row.clientId !== clientId) throw invalidGrant('the device code is invalid');
  if (row.status === 'USED') throw invalidGrant('the device code was already used');
  const now = new Date();
  if (row.expiresAt <= now) throw expiredToken('the device code has expired; start the device authorization again');
  if (row.status === 'DENIED') throw accessDenied('the user denied the authorization');

  const tooSoon =
    !!row.lastPolledAt && now.getTime() - row.lastPolledAt.getTime() < row.intervalSeconds * 1000 - JITTER_MS;
  const interval = tooSoon ? row.intervalSeconds + SLOW_DOWN_STEP_S : row.intervalSeconds;
  await ctx.db
    .update(deviceAuthorizations)
    .set({ lastPolledAt: now, intervalSeconds: interval })
    .where(eq(deviceAuthorizations.id, row.id));
  if (tooSoon) throw slowDown(`polled too fast; wait ${interval} seconds between requests`);
  if (row.status === 'PENDING') throw authorizationPending('the user has not answered yet');

  const grantId = await execute(ctx, async (work) => {
    await work.load('device_authorization', row.id);
    const [used] = await work.tx
      .update(deviceAuthorizations)
      .set({ status: 'USED' })
      .where(and(eq(deviceAuthorizations.id, row.id), eq(deviceAuthorizations.status, 'APPROVED')))
      .returning();
    if (!used?.grantId) return undefined;
    work.push({
      aggregateType: 'device_authorization',
      aggregateId: row.id,
      type: 'device_authorization.used',
      resourceOwner: ctx.instanceId,
    });
    return used.grantId;
  });
  if (!grantId) throw invalidGrant('the device code was already used');
  const grant = await findGrant(ctx, grantId);
  if (!grant || grant.revokedAt) throw invalidGrant('the grant of this device code is revoked');
  return grant;
}
