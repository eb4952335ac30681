import { authorizationCode } from './authorization-code';
import { refreshToken } from './refresh-token';
import type { GrantType } from './types';

/**
 * The token endpoint's dispatch table: grant_type → handler. Anything not listed (including
 * `password`) is unsupported_grant_type.
 */
export const GRANTS: Record<string, GrantType> = {
  authorization_code: authorizationCode,
  refresh_token: refreshToken,
};
