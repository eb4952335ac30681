import { Principal } from '../../../authz/principal';
import { membershipsOf } from '../../administrator/memberships';
import type { Ctx } from '../../context';
import type { UnitOfWork } from '../../execute';
import { maySignIn, TOKEN_USE } from '../../session/may-sign-in';
import { claimUser } from '../issue';
import { invalidGrant, invalidRequest } from '../oauth-errors';

/**
 * May `actorId` act as the subject? The instance allows impersonation, the actor is active and holds
 * the `impersonation` permission on the subject's organization, and every permission of the subject.
 */
export async function checkImpersonation(
  ctx: Ctx,
  allowedByInstance: boolean,
  actorId: string,
  subjectId: string,
  subjectOrgId: string,
): Promise<void> {
  if (!allowedByInstance) throw invalidRequest('impersonation is not allowed on this instance');
  const actorUser = await claimUser(ctx.db, actorId);
  if (!actorUser || !maySignIn(actorUser, TOKEN_USE)) throw invalidGrant('the actor is not active');
  const principal = new Principal(actorId, actorUser.orgId, await membershipsOf(ctx.db, actorId));
  if (!principal.canOrg('impersonation', subjectOrgId))
    throw invalidGrant("the actor lacks the impersonation permission on the subject's organization");
  // Impersonation never reaches upwards: the actor must hold every permission of the subject, so
  // the impersonated token carries no more than the actor could do itself.
  if (!principal.covers(await membershipsOf(ctx.db, subjectId)))
    throw invalidGrant('the subject holds permissions that the actor does not hold');
}

/** The `user.impersonated` event, in the transaction that issues the impersonated tokens. */
export function recordImpersonation(
  work: UnitOfWork,
  p: { subjectId: string; subjectOrgId: string; actorId: string; clientId: string; sessionId: string | null },
): void {
  work.push({
    aggregateType: 'user',
    aggregateId: p.subjectId,
    type: 'user.impersonated',
    payload: { actorUserId: p.actorId, clientId: p.clientId, sessionId: p.sessionId },
    resourceOwner: p.subjectOrgId,
  });
}
