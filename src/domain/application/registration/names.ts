/**
 * RFC 7591 names of the metadata values and the names the applications store. Only values that a
 * self-registered client can really use are listed: anything else is invalid_client_metadata.
 */
export const GRANT_TYPE_NAMES: Record<string, string> = {
  authorization_code: 'AUTHORIZATION_CODE',
  refresh_token: 'REFRESH_TOKEN',
  implicit: 'IMPLICIT',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'TOKEN_EXCHANGE',
};

export const RESPONSE_TYPE_NAMES: Record<string, string> = {
  code: 'CODE',
  id_token: 'ID_TOKEN',
  'id_token token': 'ID_TOKEN_TOKEN',
};

export const AUTH_METHOD_NAMES: Record<string, string> = {
  client_secret_basic: 'BASIC',
  client_secret_post: 'POST',
  none: 'NONE',
  private_key_jwt: 'PRIVATE_KEY_JWT',
};

/** OIDC Dynamic Registration §2: `web` (default) or `native`; browser apps register as web with `none`. */
export const APPLICATION_TYPE_NAMES: Record<string, string> = { web: 'WEB', native: 'NATIVE' };

/** The RFC 7591 name of a stored value (the reverse of one of the tables above). */
export function externalName(table: Record<string, string>, stored: string): string | undefined {
  return Object.entries(table).find(([, v]) => v === stored)?.[0];
}
