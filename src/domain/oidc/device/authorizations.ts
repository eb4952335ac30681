import { and, eq, gt } from 'drizzle-orm';
import { randomToken, sha256Hex } from '../../../crypto/random';
import type { Db } from '../../../db/client';
import { deviceAuthorizations } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { DomainError } from '../../errors';
import { execute } from '../../execute';
import type { OidcClient } from '../clients';
import { newUserCode } from './user-code';

export type DeviceAuthorization = typeof deviceAuthorizations.$inferSelect;

/** RFC 8628 §3.2's example lifetime: long enough to find a phone and sign in, short enough to guess nothing. */
const DEVICE_CODE_LIFETIME_S = 600;
/** The polling interval a device starts with (§3.2: 5 seconds when the server says nothing). */
const DEVICE_POLL_INTERVAL_S = 5;

export interface StartedDeviceAuthorization {
  deviceCode: string;
  userCode: string;
  expiresIn: number;
  interval: number;
}

/**
 * A new device authorization for the client: a 256-bit device code (only its hash is kept) and a user
 * code unique among all rows; a drawn code that exists already is drawn again.
 */
export async function startDeviceAuthorization(
  ctx: Ctx,
  client: OidcClient,
  scopes: string[],
): Promise<StartedDeviceAuthorization> {
  const deviceCode = randomToken(32);
  const id = `da_${randomToken(16)}`;
  const userCode = await execute(ctx, async (work) => {
    work.created('device_authorization', id);
    for (let attempt = 0; attempt < 5; attempt++) {
      const code = newUserCode();
      const [row] = await work.tx
        .insert(deviceAuthorizations)
        .values({
          id,
          deviceCodeHash: sha256Hex(deviceCode),
          userCode: code,
          clientId: client.clientId,
          applicationId: client.applicationId,
          scopes,
          status: 'PENDING',
          intervalSeconds: DEVICE_POLL_INTERVAL_S,
          expiresAt: new Date(Date.now() + DEVICE_CODE_LIFETIME_S * 1000),
        })
        .onConflictDoNothing({ target: deviceAuthorizations.userCode })
        .returning();
      if (!row) continue;
      work.push({
        aggregateType: 'device_authorization',
        aggregateId: id,
        type: 'device_authorization.added',
        payload: { clientId: client.clientId, scope: scopes },
        resourceOwner: client.orgId,
      });
      return code;
    }
    throw new DomainError(
      'unavailable',
      'Errors.DeviceAuthorization.UserCode',
      'no free user code was found; try again',
    );
  });
  return { deviceCode, userCode, expiresIn: DEVICE_CODE_LIFETIME_S, interval: DEVICE_POLL_INTERVAL_S };
}

/** The pending, unexpired device authorization a (normalized) user code names. */
export async function findPendingByUserCode(db: Db, userCode: string): Promise<DeviceAuthorization | undefined> {
  const [row] = await db
    .select()
    .from(deviceAuthorizations)
    .where(
      and(
        eq(deviceAuthorizations.userCode, userCode),
        eq(deviceAuthorizations.status, 'PENDING'),
        gt(deviceAuthorizations.expiresAt, new Date()),
      ),
    );
  return row;
}

/** The pending, unexpired device authorization the hosted login's auth request was made for. */
export async function findPendingByAuthRequest(
  db: Db,
  authRequestId: string,
): Promise<DeviceAuthorization | undefined> {
  const [row] = await db
    .select()
    .from(deviceAuthorizations)
    .where(
      and(
        eq(deviceAuthorizations.authRequestId, authRequestId),
        eq(deviceAuthorizations.status, 'PENDING'),
        gt(deviceAuthorizations.expiresAt, new Date()),
      ),
    );
  return row;
}

/**
 * Remembers the hosted login's auth request for the authorization. A code typed again replaces the
 * earlier request, whose consent page then no longer answers this authorization.
 */
export async function attachAuthRequest(db: Db, id: string, authRequestId: string): Promise<void> {
  await db.update(deviceAuthorizations).set({ authRequestId }).where(eq(deviceAuthorizations.id, id));
}
