import type { Ctx } from '../../context';
import { consumeRecoveryCode } from '../../user/factors/recovery-codes';
import { recordFactorCheck } from '../factors';
import type { Session } from '../sessions';
import type { LoginUser } from '../users';
import { type AfterCheck, checkSecondFactor, theSession } from './otp-lockout';

/** checks.recovery_code: uses up one of the user's recovery codes (a code works once). */
export function checkRecoveryCode<T = Session>(
  ctx: Ctx,
  sessionId: string,
  user: LoginUser,
  code: string,
  then: AfterCheck<T> = theSession as AfterCheck<T>,
): Promise<T> {
  return checkSecondFactor(
    ctx,
    user,
    'recovery_code',
    'checks.recovery_code',
    (work) => consumeRecoveryCode(work.tx, user.id, code),
    (work) => recordFactorCheck(work, sessionId, user, 'recoveryCode'),
    then,
  );
}
