import { invalidRequest, unauthorizedClient, unsupportedResponseType } from '../../../domain/oidc/oauth-errors';
import type { Params } from '../../params';
import type { AuthorizeCheck } from './types';

/** The response types we answer, with the application setting that allows each. */
const RESPONSE_TYPES: Record<string, string> = {
  code: 'CODE',
  id_token: 'ID_TOKEN',
  'id_token token': 'ID_TOKEN_TOKEN',
};

/** response_type with its values in a fixed order: `token id_token` is `id_token token`. */
export function responseTypeOf(params: Params): string {
  return (params.get('response_type') ?? '').split(' ').filter(Boolean).sort().join(' ');
}

export function isSupportedResponseType(responseType: string): boolean {
  return !!RESPONSE_TYPES[responseType];
}

/** A response type we support and the application allows. */
export const responseType: AuthorizeCheck = ({ params, client, responseType }) => {
  const raw = params.get('response_type') ?? '';
  if (!raw) throw invalidRequest('response_type is missing');
  if (!isSupportedResponseType(responseType)) {
    throw unsupportedResponseType(`response_type ${raw} is not supported`);
  }
  if (!client.oidc.responseTypes.includes(RESPONSE_TYPES[responseType])) {
    throw unauthorizedClient(`the client may not use response_type ${raw}`);
  }
  return undefined;
};
