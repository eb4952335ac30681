import { APPLE_ISSUER } from './apple';
import type { OAuthProviderConfig } from './config';

/** What an administrator fills in for a well-known provider; the template knows the rest. */
export type TemplateInput =
  | { template: 'google'; clientId: string; scopes?: string[] }
  | { template: 'github'; clientId: string; scopes?: string[] }
  | {
      template: 'github_enterprise';
      clientId: string;
      authorizationEndpoint: string;
      tokenEndpoint: string;
      userEndpoint: string;
      scopes?: string[];
    }
  | { template: 'gitlab'; clientId: string; scopes?: string[] }
  | { template: 'gitlab_self_hosted'; issuer: string; clientId: string; scopes?: string[] }
  | {
      template: 'azure_ad';
      clientId: string;
      /** 'common', 'organizations', 'consumers' or a tenant id */
      tenant: string;
      /** the tenant vouches for its users' email addresses */
      emailVerified?: boolean;
      scopes?: string[];
    }
  | { template: 'apple'; clientId: string; teamId: string; keyId: string; scopes?: string[] };

const OIDC_SCOPES = ['openid', 'profile', 'email'];

const oidc = (
  p: Partial<OAuthProviderConfig> & Pick<OAuthProviderConfig, 'issuer' | 'clientId'>,
): OAuthProviderConfig => ({
  protocol: 'oidc',
  clientAuth: 'client_secret_basic',
  scopes: OIDC_SCOPES,
  usePkce: true,
  useUserinfo: false,
  emailVerifiedByProvider: false,
  mapping: {},
  ...p,
});

const github = (
  template: 'github' | 'github_enterprise',
  clientId: string,
  endpoints: { authorizationEndpoint: string; tokenEndpoint: string; userinfoEndpoint: string },
  scopes?: string[],
): OAuthProviderConfig => ({
  protocol: 'oauth',
  template,
  ...endpoints,
  clientId,
  // GitHub's token endpoint takes the secret in the body or in Basic; Basic keeps it out of logs of bodies.
  clientAuth: 'client_secret_basic',
  // user:email lets /user/emails tell which address is the primary verified one
  scopes: scopes ?? ['read:user', 'user:email'],
  usePkce: true,
  useUserinfo: true,
  idAttribute: 'id',
  emailVerifiedByProvider: false,
  mapping: { username: 'login', displayName: 'name', avatarUrl: 'avatar_url', email: 'email' },
});

/** A provider configuration filled in with the provider's documented public endpoints and quirks. */
export function fromTemplate(input: TemplateInput): OAuthProviderConfig {
  switch (input.template) {
    case 'google':
      return oidc({
        template: 'google',
        issuer: 'https://accounts.google.com',
        clientId: input.clientId,
        scopes: input.scopes ?? OIDC_SCOPES,
      });
    case 'github':
      return github(
        'github',
        input.clientId,
        {
          authorizationEndpoint: 'https://github.com/login/oauth/authorize',
          tokenEndpoint: 'https://github.com/login/oauth/access_token',
          userinfoEndpoint: 'https://api.github.com/user',
        },
        input.scopes,
      );
    case 'github_enterprise':
      return github(
        'github_enterprise',
        input.clientId,
        {
          authorizationEndpoint: input.authorizationEndpoint,
          tokenEndpoint: input.tokenEndpoint,
          userinfoEndpoint: input.userEndpoint,
        },
        input.scopes,
      );
    case 'gitlab':
    case 'gitlab_self_hosted':
      return oidc({
        template: input.template,
        issuer: input.template === 'gitlab' ? 'https://gitlab.com' : input.issuer.replace(/\/+$/, ''),
        clientId: input.clientId,
        scopes: input.scopes ?? OIDC_SCOPES,
        // GitLab puts some profile claims (and group memberships) only in userinfo
        useUserinfo: true,
        mapping: { username: 'nickname', avatarUrl: 'picture' },
      });
    case 'azure_ad':
      return oidc({
        template: 'azure_ad',
        // 'common' and 'organizations' discover an issuer with a {tenantid} placeholder; flow.ts checks
        // the ID token's iss against it filled with the token's own tid (openid-client does this for Entra).
        issuer: `https://login.microsoftonline.com/${encodeURIComponent(input.tenant)}/v2.0`,
        clientId: input.clientId,
        scopes: input.scopes ?? OIDC_SCOPES,
        emailVerifiedByProvider: input.emailVerified ?? false,
        mapping: { username: 'preferred_username' },
      });
    case 'apple':
      return oidc({
        template: 'apple',
        issuer: APPLE_ISSUER,
        clientId: input.clientId,
        // Apple wants the generated secret JWT in the request body
        clientAuth: 'client_secret_post',
        scopes: input.scopes ?? ['openid', 'name', 'email'],
        mapping: {},
      });
  }
}
