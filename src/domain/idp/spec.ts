import type { ClaimMapping } from './external-user';
import type { SamlNameIdFormat, SamlSpKeys } from './saml/config';

export type ClientAuth = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

/**
 * A provider as an administrator describes it: a generic protocol or a template of a well-known
 * provider. This is what is stored (without secrets) and returned; the protocol configuration that
 * runs a sign-in is derived from it (src/domain/idp/runtime.ts).
 */
export type ProviderSpec =
  | {
      kind: 'generic_oidc';
      issuer: string;
      clientId: string;
      clientAuth: ClientAuth;
      scopes: string[];
      disablePkce: boolean;
      useUserinfo: boolean;
      emailVerifiedByProvider: boolean;
      mapping: ClaimMapping;
    }
  | {
      kind: 'generic_oauth';
      authorizationEndpoint: string;
      tokenEndpoint: string;
      userinfoEndpoint: string;
      clientId: string;
      clientAuth: ClientAuth;
      scopes: string[];
      idAttribute: string;
      disablePkce: boolean;
      emailVerifiedByProvider: boolean;
      mapping: ClaimMapping;
    }
  | { kind: 'google' | 'github' | 'gitlab'; clientId: string; scopes: string[] }
  | {
      kind: 'github_enterprise';
      clientId: string;
      authorizationEndpoint: string;
      tokenEndpoint: string;
      userEndpoint: string;
      scopes: string[];
    }
  | { kind: 'gitlab_self_hosted'; issuer: string; clientId: string; scopes: string[] }
  | { kind: 'azure_ad'; clientId: string; tenant: string; emailVerified: boolean; scopes: string[] }
  | { kind: 'apple'; clientId: string; teamId: string; keyId: string; scopes: string[] }
  | {
      kind: 'saml';
      metadataXml: string;
      metadataUrl?: string;
      binding: 'redirect' | 'post';
      signRequests: boolean;
      nameIdFormat: SamlNameIdFormat;
      transientMappingAttributeName?: string;
      allowUnsignedAssertions: boolean;
      mapping: ClaimMapping;
    }
  | {
      kind: 'ldap';
      servers: string[];
      startTls: boolean;
      baseDn: string;
      bindDn: string;
      userObjectClasses: string[];
      userFilters: string[];
      timeoutSeconds: number;
      rootCa?: string;
      mapping: ClaimMapping;
    };

export type ProviderKind = ProviderSpec['kind'];

/** The write-only parts of a provider, as an administrator sends them (empty in an update: keep). */
export interface SecretsInput {
  clientSecret?: string;
  privateKey?: { pem: string; keyId: string };
  /** Apple's Sign in with Apple key */
  applePrivateKey?: string;
  bindPassword?: string;
}

/** What `identity_providers.secrets` holds, encrypted under the master key. */
export interface StoredSecrets extends SecretsInput {
  /** SAML: the service provider's own key pair, made when the provider is created */
  samlSp?: SamlSpKeys;
}

export type IdpType = 'OIDC' | 'OAUTH' | 'SAML' | 'LDAP';

/** The protocol and template column values of each kind. */
export const KIND_INFO: Record<ProviderKind, { type: IdpType; template: string }> = {
  generic_oidc: { type: 'OIDC', template: 'GENERIC' },
  generic_oauth: { type: 'OAUTH', template: 'GENERIC' },
  google: { type: 'OIDC', template: 'GOOGLE' },
  github: { type: 'OAUTH', template: 'GITHUB' },
  github_enterprise: { type: 'OAUTH', template: 'GITHUB_ENTERPRISE' },
  gitlab: { type: 'OIDC', template: 'GITLAB' },
  gitlab_self_hosted: { type: 'OIDC', template: 'GITLAB_SELF_HOSTED' },
  azure_ad: { type: 'OIDC', template: 'AZURE_AD' },
  apple: { type: 'OIDC', template: 'APPLE' },
  saml: { type: 'SAML', template: 'GENERIC' },
  ldap: { type: 'LDAP', template: 'GENERIC' },
};
