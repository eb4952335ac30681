import { type ResponseMode, responseModeFor } from '../../authorize-response';
import { isSupportedResponseType } from './response-type';
import type { TrustedRequest } from './types';

/**
 * How the answer, an error too, reaches the redirect URI. Not a check: it is settled before the checks
 * run, since it carries their errors; an unknown response_mode is ignored and the response type's
 * default used (an unsupported response type counts as code).
 */
export function responseMode({ params, responseType }: TrustedRequest): ResponseMode {
  return responseModeFor(isSupportedResponseType(responseType) ? responseType : 'code', params.get('response_mode'));
}
