import { and, eq, gt } from 'drizzle-orm';
import { deviceAuthorizations } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { failedPrecondition, invalidArgument, notFound, permissionDenied } from '../../errors';
import { execute } from '../../execute';
import { firstFactorAt } from '../../session/factors';
import type { Session } from '../../session/sessions';
import { finishIn } from '../../sign-in/finish';
import { tokenAudience } from '../authorize';
import { findClient } from '../clients';
import { createSessionGrant } from '../grants';
import { claimUser } from '../issue';
import { policyMessage } from '../login-ui';
import { requestedOrgId } from '../scopes';
import { instanceSettings } from '../settings';
import { refusalFor } from '../user-access';
import type { DeviceAuthorization } from './authorizations';

const gone = () =>
  notFound(
    'Errors.DeviceAuthorization.NotFound',
    'the device authorization does not exist, has expired or was answered',
  );

/** Only a pending, unexpired authorization changes; a second answer finds nothing. */
const stillPending = (id: string) =>
  and(
    eq(deviceAuthorizations.id, id),
    eq(deviceAuthorizations.status, 'PENDING'),
    gt(deviceAuthorizations.expiresAt, new Date()),
  );

/**
 * Approves the device authorization with the session of the user who signed in: the session must have
 * a first factor and satisfy the login policy (as for any sign-in that finishes a request), its user
 * may get tokens for the client (the same rule as the code flow's), and the request's organization
 * scope, if any, is the user's. The grant is created here; the device's next poll collects the tokens.
 */
export async function approveDeviceAuthorization(ctx: Ctx, row: DeviceAuthorization, session: Session): Promise<void> {
  if (!session.userId || !firstFactorAt(session))
    throw invalidArgument('Errors.Session.NotAuthenticated', 'session: the session has no checked first factor');
  const client = await findClient(ctx, row.clientId);
  if (!client?.active || !client.oidc?.grantTypes.includes('DEVICE_CODE'))
    throw failedPrecondition('Errors.DeviceAuthorization.Client', 'the application may no longer use the device flow');
  const user = await claimUser(ctx.db, session.userId);
  if (user?.type !== 'HUMAN') throw permissionDenied('the user is not active', 'Errors.DeviceAuthorization.User');
  const orgId = requestedOrgId(row.scopes);
  if (orgId && user.orgId !== orgId)
    throw permissionDenied('the user does not belong to the requested organization', 'Errors.DeviceAuthorization.User');
  const refusal = await refusalFor(ctx.db, user, client);
  if (refusal) throw permissionDenied(refusal, 'Errors.DeviceAuthorization.User');
  const settings = await instanceSettings(ctx, ctx.instanceId);
  const audience = await tokenAudience(ctx.db, client, row.scopes);
  await execute(ctx, async (work) => {
    await work.load('device_authorization', row.id);
    // The session must still have a first factor and satisfy the login policy when the grant commits.
    const finished = await finishIn(work, session.id, null, 'signed-in', async (locked) => {
      const grant = await createSessionGrant(work, {
        session: { id: locked.id, amr: locked.amr, authTime: firstFactorAt(locked)! },
        user,
        client,
        scopes: row.scopes,
        audience,
        refreshTokenAbsoluteSeconds: settings.refreshTokenAbsoluteSeconds,
      });
      const [done] = await work.tx
        .update(deviceAuthorizations)
        .set({ status: 'APPROVED', userId: user.id, sessionId: locked.id, grantId: grant.id })
        .where(stillPending(row.id))
        .returning();
      if (!done) throw gone();
      work.push({
        aggregateType: 'device_authorization',
        aggregateId: row.id,
        type: 'device_authorization.approved',
        payload: { userId: user.id, sessionId: locked.id, grantId: grant.id },
        resourceOwner: user.orgId,
      });
    });
    if (finished.ok) return;
    if (finished.refusal === 'password_change_required')
      throw failedPrecondition('Errors.User.PasswordChangeRequired', 'session: the user must set a new password first');
    if (finished.gap) throw failedPrecondition('Errors.Session.LoginPolicy', `session: ${policyMessage(finished.gap)}`);
    throw invalidArgument('Errors.Session.NotAuthenticated', 'session: the session has no checked first factor');
  });
}

/** The user refused: the device's next poll gets access_denied. */
export async function denyDeviceAuthorization(ctx: Ctx, row: DeviceAuthorization): Promise<void> {
  await execute(ctx, async (work) => {
    await work.load('device_authorization', row.id);
    const [done] = await work.tx
      .update(deviceAuthorizations)
      .set({ status: 'DENIED' })
      .where(stillPending(row.id))
      .returning();
    if (!done) throw gone();
    work.push({
      aggregateType: 'device_authorization',
      aggregateId: row.id,
      type: 'device_authorization.denied',
      resourceOwner: ctx.instanceId,
    });
  });
}
