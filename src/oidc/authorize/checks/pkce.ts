import { invalidRequest } from '../../../domain/oidc/oauth-errors';
import type { AuthorizeCheck } from './types';

/** RFC 7636 characters and length of a code challenge (an S256 challenge is 43 characters). */
const CHALLENGE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** PKCE with S256 only (plain would let a stolen code be redeemed); public clients of the code flow must use it. */
export const pkce: AuthorizeCheck = ({ params, client, responseType }) => {
  const challenge = params.get('code_challenge');
  const method = params.get('code_challenge_method');
  if (method !== undefined && method !== 'S256') throw invalidRequest('code_challenge_method must be S256');
  if (challenge !== undefined && method === undefined) {
    throw invalidRequest('code_challenge_method S256 is required with code_challenge');
  }
  if (method !== undefined && !challenge) throw invalidRequest('code_challenge is missing');
  if (challenge !== undefined && !CHALLENGE.test(challenge)) throw invalidRequest('code_challenge is malformed');
  if (responseType === 'code' && client.authMethod === 'NONE' && !challenge) {
    throw invalidRequest('public clients must use PKCE (code_challenge with S256)');
  }
  return { codeChallenge: challenge ?? null };
};
