import type { IdpOptions } from '../../db/schema/index';
import { invalidArgument } from '../errors';

export type { IdpOptions };

/** A new provider links and creates accounts, asking the user first; nothing is kept. */
export const DEFAULT_OPTIONS: IdpOptions = {
  isLinkingAllowed: true,
  isCreationAllowed: true,
  isAutoCreation: false,
  isAutoUpdate: false,
  autoLinking: 'NONE',
  storeTokens: false,
  trustVerifiedEmail: false,
};

const AUTO_LINKING = ['NONE', 'EMAIL', 'USERNAME'] as const;

function checkOptions(o: IdpOptions): IdpOptions {
  if (!AUTO_LINKING.includes(o.autoLinking))
    throw invalidArgument('Errors.IdP.Invalid', `options.auto_linking must be one of ${AUTO_LINKING.join(', ')}`);
  if (!o.isLinkingAllowed && !o.isCreationAllowed)
    throw invalidArgument(
      'Errors.IdP.Invalid',
      'options must allow linking or creation (is_linking_allowed or is_creation_allowed), else nobody can sign in',
    );
  if (o.isAutoCreation && !o.isCreationAllowed)
    throw invalidArgument('Errors.IdP.Invalid', 'options.is_auto_creation needs is_creation_allowed');
  if (o.autoLinking !== 'NONE' && !o.isLinkingAllowed)
    throw invalidArgument('Errors.IdP.Invalid', 'options.auto_linking needs is_linking_allowed');
  return o;
}

/**
 * Trusting an upstream's verified emails hands it every account with that email, so only a provider
 * the instance's administrators configure may do it; an organization's provider always asks the
 * account's own credential before linking.
 */
export function checkOptionsOf(orgId: string | null, o: IdpOptions): IdpOptions {
  if (orgId && o.trustVerifiedEmail)
    throw invalidArgument(
      'Errors.IdP.Invalid',
      "options.trust_verified_email is for instance providers only: an organization's provider links an existing " +
        "account only after the account's own password or passkey",
    );
  return checkOptions(o);
}
