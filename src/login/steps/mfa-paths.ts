import type { SecondFactorChoice, SetupChoice } from '../../domain/session/policy-gap';
import { FACTORS, SECOND_FACTOR_NAMES, SETUP } from '../../domain/sign-in/factors';

/** The login page that checks each second factor (declared with the factor, src/domain/sign-in/factors.ts). */
export const CHECK_PATHS = Object.fromEntries(SECOND_FACTOR_NAMES.map((f) => [f, FACTORS[f].checkPath])) as Record<
  SecondFactorChoice,
  string
>;

/** The login page that sets up each factor. */
export const SETUP_PATHS = Object.fromEntries(
  (Object.keys(SETUP) as SetupChoice[]).map((f) => [f, SETUP[f].path]),
) as Record<SetupChoice, string>;
