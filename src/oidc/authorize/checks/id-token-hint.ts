import { invalidRequest, loginRequired } from '../../../domain/oidc/oauth-errors';
import { verifyIdTokenHint } from '../../../domain/oidc/id-token-hint';
import { oidcEnv } from '../../env';
import type { AuthorizeCheck } from './types';
import { sourceOf } from '../../../deps';

/**
 * id_token_hint: an ID token we issued (domain/oidc/id-token-hint.ts: never another JWT we signed); its
 * subject is the only user who may answer. With prompt=none a bad hint is login_required.
 */
export const idTokenHint: AuthorizeCheck = async ({ params, deps }, found) => {
  const hint = params.get('id_token_hint');
  if (!hint) return undefined;
  const verified = await verifyIdTokenHint(sourceOf(deps), { ...oidcEnv(deps), instanceId: deps.instanceId }, hint);
  if (verified) return { hintUserId: verified.sub };
  const error = found.prompt.includes('none') ? loginRequired : invalidRequest;
  throw error('id_token_hint is not a valid ID token of this issuer');
};
