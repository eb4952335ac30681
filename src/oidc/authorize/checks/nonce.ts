import { invalidRequest } from '../../../domain/oidc/oauth-errors';
import type { AuthorizeCheck } from './types';

/** The implicit flow needs a nonce: it is the only replay protection of an ID token in the fragment. */
export const nonce: AuthorizeCheck = ({ params, responseType }) => {
  const nonce = params.get('nonce');
  if (responseType !== 'code' && !nonce) throw invalidRequest('nonce is required for the implicit flow');
  return { nonce: nonce ?? null };
};
