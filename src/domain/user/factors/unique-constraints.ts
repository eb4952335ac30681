import { alreadyExists } from '../../errors';
import type { UniqueConstraintErrors } from '../../execute';

/** Two requests adding the same factor at once: the second gets what a sequential one would. */
export const factorUniqueConstraints: UniqueConstraintErrors = {
  user_factors_single_uq: () =>
    alreadyExists('Errors.User.MFA.AlreadyExisting', 'the user already has this kind of second factor'),
  user_factors_credential_uq: () =>
    alreadyExists('Errors.User.Passkey.AlreadyExisting', 'this passkey or security key is registered already'),
};
