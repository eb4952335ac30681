import type { Ctx } from '../../context';
import { consumeTotp } from '../../user/factors/totp';
import { recordFactorCheck } from '../factors';
import type { Session } from '../sessions';
import type { LoginUser } from '../users';
import { type AfterCheck, checkSecondFactor, theSession } from './otp-lockout';

/**
 * checks.totp: a code of the user's ready authenticator app, within one step of now, and of a later
 * step than any code used before (a code is usable once; concurrent replays: one wins).
 */
export function checkTotp<T = Session>(
  ctx: Ctx,
  sessionId: string,
  user: LoginUser,
  code: string,
  then: AfterCheck<T> = theSession as AfterCheck<T>,
): Promise<T> {
  return checkSecondFactor(
    ctx,
    user,
    'totp',
    'checks.totp',
    (work) => consumeTotp(work.tx, user.id, code),
    (work) => recordFactorCheck(work, sessionId, user, 'totp'),
    then,
  );
}
