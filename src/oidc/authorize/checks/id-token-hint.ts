import { invalidRequest, loginRequired } from '../../../domain/oidc/oauth-errors';
import { verifyOwnJwt } from '../../../domain/oidc/web-keys';
import { oidcEnv } from '../../env';
import type { AuthorizeCheck } from './types';

/**
 * id_token_hint: an ID token we signed (expired ones too, as the hint is about who, not when); its
 * subject is the only user who may answer. With prompt=none a bad hint is login_required.
 */
export const idTokenHint: AuthorizeCheck = async ({ params, deps }, found) => {
  const hint = params.get('id_token_hint');
  if (!hint) return undefined;
  try {
    const { payload } = await verifyOwnJwt(deps.database.db, oidcEnv(deps).masterKey, hint, {
      issuer: deps.config.externalUrl,
      ignoreExpiration: true,
    });
    return { hintUserId: typeof payload.sub === 'string' ? payload.sub : null };
  } catch {
    const error = found.prompt.includes('none') ? loginRequired : invalidRequest;
    throw error('id_token_hint is not a valid ID token of this issuer');
  }
};
