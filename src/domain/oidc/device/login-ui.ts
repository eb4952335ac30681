import type { Ctx } from '../../context';
import { notFound } from '../../errors';
import { requireLoginUiPermission } from '../../session/login-ui-permission';
import { getSession } from '../../session/sessions';
import { findClient } from '../clients';
import { type DeviceAuthorization, findPendingByUserCode } from './authorizations';
import { approveDeviceAuthorization, denyDeviceAuthorization } from './decide';
import { normalizeUserCode } from './user-code';

async function pendingByUserCode(ctx: Ctx, userCode: string): Promise<DeviceAuthorization> {
  const code = normalizeUserCode(userCode);
  const row = code ? await findPendingByUserCode(ctx.db, code) : undefined;
  if (!row) throw notFound('Errors.DeviceAuthorization.NotFound', 'user_code: no pending device authorization');
  return row;
}

/** GetDeviceAuthorizationRequest for custom login UIs: the pending authorization and its application's name. */
export async function getDeviceAuthorizationForLoginUi(
  ctx: Ctx,
  userCode: string,
): Promise<{ row: DeviceAuthorization; appName: string }> {
  requireLoginUiPermission(ctx);
  const row = await pendingByUserCode(ctx, userCode);
  const client = await findClient(ctx, row.clientId);
  return { row, appName: client?.name ?? row.clientId };
}

/**
 * AuthorizeOrDenyDeviceAuthorization: approve with a session whose token the login UI holds (the same
 * rules as the hosted login's consent: a first factor and the login policy), or deny.
 */
export async function authorizeOrDenyDeviceAuthorization(
  ctx: Ctx,
  userCode: string,
  answer: { session: { id: string; token: string } } | 'deny',
): Promise<void> {
  requireLoginUiPermission(ctx);
  const row = await pendingByUserCode(ctx, userCode);
  if (answer === 'deny') return denyDeviceAuthorization(ctx, row);
  const session = await getSession(ctx.db, answer.session.id, answer.session.token);
  if (!session) throw notFound('Errors.Session.NotFound', 'session not found');
  await approveDeviceAuthorization(ctx, row, session);
}
