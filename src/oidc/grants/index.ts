import { authorizationCode } from './authorization-code';
import { clientCredentials } from './client-credentials';
import { DEVICE_CODE_GRANT, deviceCode } from './device-code';
import { JWT_BEARER_GRANT, jwtBearer } from './jwt-bearer';
import { refreshToken } from './refresh-token';
import { TOKEN_EXCHANGE_GRANT, tokenExchange } from './token-exchange';
import type { GrantType } from './types';

/**
 * The token endpoint's dispatch table: grant_type → handler. Anything not listed (including
 * `password`) is unsupported_grant_type.
 */
export const GRANTS: Record<string, GrantType> = {
  authorization_code: authorizationCode,
  refresh_token: refreshToken,
  client_credentials: clientCredentials,
  [JWT_BEARER_GRANT]: jwtBearer,
  [TOKEN_EXCHANGE_GRANT]: tokenExchange,
  [DEVICE_CODE_GRANT]: deviceCode,
};
