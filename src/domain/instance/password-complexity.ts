import type { Ctx } from '../context';
import { getInstanceSettings } from './settings';

export interface PasswordComplexity {
  minLength: number;
  requiresUppercase: boolean;
  requiresLowercase: boolean;
  requiresNumber: boolean;
  requiresSymbol: boolean;
  blocksCommon: boolean;
}

/**
 * GetPasswordComplexitySettings: the rules checkPasswordPolicy applies, for every signed-in caller, so
 * that a password form shows them before the user types (they are no secret: a refusal names them).
 */
export async function getPasswordComplexity(
  ctx: Pick<Ctx, 'db' | 'runtime' | 'instanceId'>,
): Promise<PasswordComplexity> {
  const s = await getInstanceSettings(ctx, ctx.instanceId);
  return {
    minLength: s.passwordMinLength,
    requiresUppercase: s.passwordRequireUppercase,
    requiresLowercase: s.passwordRequireLowercase,
    requiresNumber: s.passwordRequireNumber,
    requiresSymbol: s.passwordRequireSymbol,
    blocksCommon: s.passwordBlockCommon,
  };
}
