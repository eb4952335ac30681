import type { ApiAppConfig, OidcAppConfig, SamlAppConfig } from '../../db/schema/index';

export type { ApiAppConfig, OidcAppConfig, SamlAppConfig };

export const RESPONSE_TYPES = ['CODE', 'ID_TOKEN', 'ID_TOKEN_TOKEN'] as const;
export const GRANT_TYPES = [
  'AUTHORIZATION_CODE',
  'IMPLICIT',
  'REFRESH_TOKEN',
  'TOKEN_EXCHANGE',
  'DEVICE_CODE',
] as const;
export const OIDC_APP_TYPES = ['WEB', 'USER_AGENT', 'NATIVE'] as const;
export const OIDC_AUTH_METHODS = ['BASIC', 'POST', 'NONE', 'PRIVATE_KEY_JWT'] as const;
export const ACCESS_TOKEN_TYPES = ['BEARER', 'JWT'] as const;
export const SECURITY_PROFILES = ['NONE', 'FAPI_2_0'] as const;
export const API_AUTH_METHODS = ['BASIC', 'PRIVATE_KEY_JWT'] as const;

export type AppType = 'OIDC' | 'SAML' | 'API';
export type AppState = 'ACTIVE' | 'INACTIVE' | 'REMOVED';

/** The type-specific configuration of a new or changed application; exactly one is set. */
export type AppConfigInput =
  | { type: 'OIDC'; oidc: Partial<OidcAppConfig> }
  | { type: 'SAML'; saml: SamlAppConfig }
  | { type: 'API'; api: Partial<ApiAppConfig> };

/** What a new OIDC client gets when the caller leaves a field out. */
export const OIDC_DEFAULTS: OidcAppConfig = {
  redirectUris: [],
  postLogoutRedirectUris: [],
  responseTypes: ['CODE'],
  grantTypes: ['AUTHORIZATION_CODE'],
  applicationType: 'WEB',
  authMethodType: 'BASIC',
  accessTokenType: 'BEARER',
  accessTokenRoleAssertion: false,
  idTokenRoleAssertion: false,
  idTokenUserinfoAssertion: false,
  clockSkewSeconds: 0,
  developmentMode: false,
  additionalOrigins: [],
  backchannelLogoutUri: '',
  backchannelLogoutSessionRequired: false,
  frontchannelLogoutUri: '',
  frontchannelLogoutSessionRequired: false,
  requirePushedAuthorizationRequests: false,
  dpopBoundAccessTokens: false,
  securityProfile: 'NONE',
  apiAccess: false,
};

export const API_DEFAULTS: ApiAppConfig = { authMethodType: 'BASIC' };

/**
 * Merges given fields over a base: a field that is present (even an empty list) replaces the base's.
 * Empty lists of response and grant types fall back to the defaults, so a client always has a flow.
 */
export function withOidcDefaults(base: OidcAppConfig, change: Partial<OidcAppConfig>): OidcAppConfig {
  const merged = { ...base } as Record<string, unknown>;
  for (const [k, v] of Object.entries(change)) if (v !== undefined) merged[k] = v;
  const out = merged as unknown as OidcAppConfig;
  if (out.responseTypes.length === 0) out.responseTypes = [...OIDC_DEFAULTS.responseTypes];
  if (out.grantTypes.length === 0) out.grantTypes = [...OIDC_DEFAULTS.grantTypes];
  return out;
}

/** Authentication methods that use a client secret. */
export function usesSecret(type: AppType, config: { authMethodType?: string } | null | undefined): boolean {
  if (type === 'OIDC') return config?.authMethodType === 'BASIC' || config?.authMethodType === 'POST';
  if (type === 'API') return config?.authMethodType === 'BASIC';
  return false;
}

export function usesKeys(type: AppType, config: { authMethodType?: string } | null | undefined): boolean {
  return type !== 'SAML' && config?.authMethodType === 'PRIVATE_KEY_JWT';
}
