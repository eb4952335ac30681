import type { Ctx } from '../../context';
import { failedPrecondition, invalidArgument } from '../../errors';
import { execute } from '../../execute';
import { requireIdpCovers } from '../../idp/coverage';
import { consumeIntent } from '../../idp/intents/use';
import { recordFactorCheck } from '../factors';
import type { Session } from '../sessions';
import { findUserById, type LoginUser } from '../users';

export interface IdpIntentCheck {
  intentId: string;
  token: string;
}

/**
 * checks.idp_intent: a finished sign-in at an upstream identity provider, used once. Its upstream
 * account must be linked to a user, and that user is the session's (or becomes it).
 */
export function checkIdpIntent(
  ctx: Ctx,
  sessionId: string,
  user: LoginUser | undefined,
  check: IdpIntentCheck,
): Promise<{ session: Session; user: LoginUser }> {
  return execute(ctx, async (work) => {
    const { intent, userId } = await consumeIntent(work, check);
    if (!userId)
      throw failedPrecondition(
        'Errors.IdP.Intent.NotLinked',
        'checks.idp_intent: the upstream account is not linked to a user (create or link one first)',
      );
    if (user && user.id !== userId)
      throw invalidArgument(
        'Errors.IdP.Intent.OtherUser',
        'checks.idp_intent belongs to another user than the session',
      );
    const linked = await findUserById(work.tx, userId);
    if (!linked || linked.state !== 'ACTIVE')
      throw failedPrecondition('Errors.User.NotActive', 'checks.idp_intent: the linked user is not active');
    // a link made before the user gained permissions beyond the provider's reach signs nobody in
    await requireIdpCovers(work.tx, intent.idpId, linked.id);
    const session = await recordFactorCheck(work, sessionId, linked, 'idpIntent', { idpId: intent.idpId });
    return { session, user: linked };
  });
}
