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
};

const AUTO_LINKING = ['NONE', 'EMAIL', 'USERNAME'] as const;

export function checkOptions(o: IdpOptions): IdpOptions {
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
