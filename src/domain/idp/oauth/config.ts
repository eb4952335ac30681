// placeholder until the OAuth module lands
import type { ClaimMapping } from '../external-user';
export type OAuthTemplate =
  | 'google'
  | 'github'
  | 'github_enterprise'
  | 'gitlab'
  | 'gitlab_self_hosted'
  | 'azure_ad'
  | 'apple';
export interface OAuthProviderConfig {
  protocol: 'oidc' | 'oauth';
  template?: OAuthTemplate;
  issuer?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  clientId: string;
  clientAuth: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';
  scopes: string[];
  usePkce: boolean;
  useUserinfo: boolean;
  idAttribute?: string;
  emailVerifiedByProvider?: boolean;
  mapping: ClaimMapping;
}
export interface OAuthProviderSecrets {
  clientSecret?: string;
  privateKey?: { pem: string; keyId: string };
  apple?: { teamId: string; keyId: string; privateKeyPem: string };
}
export function checkOAuthConfig(c: unknown, _secrets: OAuthProviderSecrets): OAuthProviderConfig {
  return c as OAuthProviderConfig;
}
