import { DomainError } from '../errors';
import { type LdapProviderConfig, type LdapProviderSecrets, checkLdapConfig } from './ldap/config';
import { type OAuthProviderConfig, type OAuthProviderSecrets, checkOAuthConfig } from './oauth/config';
import { fromTemplate } from './oauth/templates';
import { type SamlProviderConfig, type SamlSpKeys, checkSamlConfig } from './saml/config';
import type { ProviderSpec, StoredSecrets } from './spec';

/** What a sign-in through a provider runs on: the protocol module's configuration and secrets. */
export type ProviderRuntime =
  | { protocol: 'oauth'; config: OAuthProviderConfig; secrets: OAuthProviderSecrets }
  | { protocol: 'saml'; config: SamlProviderConfig; keys: SamlSpKeys }
  | { protocol: 'ldap'; config: LdapProviderConfig; secrets: LdapProviderSecrets };

const OIDC_SCOPES = ['openid', 'profile', 'email'];

/**
 * The protocol configuration a provider's spec stands for (templates fill in the well-known
 * endpoints), checked and completed with its defaults by the protocol module. Errors name the field
 * with the spec's kind in front (`generic_oidc.issuer must be …`).
 */
export function runtimeOf(spec: ProviderSpec, secrets: StoredSecrets): ProviderRuntime {
  const raw = rawRuntime(spec, secrets);
  try {
    if (raw.protocol === 'oauth') return { ...raw, config: checkOAuthConfig(raw.config, raw.secrets) };
    if (raw.protocol === 'saml') return { ...raw, config: checkSamlConfig(raw.config) };
    if (!raw.secrets.bindPassword)
      throw new DomainError('invalid_argument', 'Errors.IdP.Invalid', 'bind_password is required');
    return { ...raw, config: checkLdapConfig(raw.config) };
  } catch (err) {
    if (err instanceof DomainError && err.kind === 'invalid_argument')
      throw new DomainError(err.kind, err.key, `${spec.kind}.${err.message}`);
    throw err;
  }
}

function rawRuntime(spec: ProviderSpec, secrets: StoredSecrets): ProviderRuntime {
  const oauthSecrets: OAuthProviderSecrets = {
    clientSecret: secrets.clientSecret,
    privateKey: secrets.privateKey,
  };
  switch (spec.kind) {
    case 'generic_oidc':
      return {
        protocol: 'oauth',
        secrets: oauthSecrets,
        config: {
          protocol: 'oidc',
          issuer: spec.issuer,
          clientId: spec.clientId,
          clientAuth: spec.clientAuth,
          scopes: spec.scopes.length ? spec.scopes : OIDC_SCOPES,
          usePkce: !spec.disablePkce,
          useUserinfo: spec.useUserinfo,
          emailVerifiedByProvider: spec.emailVerifiedByProvider,
          mapping: spec.mapping,
        },
      };
    case 'generic_oauth':
      return {
        protocol: 'oauth',
        secrets: oauthSecrets,
        config: {
          protocol: 'oauth',
          authorizationEndpoint: spec.authorizationEndpoint,
          tokenEndpoint: spec.tokenEndpoint,
          userinfoEndpoint: spec.userinfoEndpoint,
          clientId: spec.clientId,
          clientAuth: spec.clientAuth,
          scopes: spec.scopes,
          usePkce: !spec.disablePkce,
          useUserinfo: true,
          idAttribute: spec.idAttribute,
          emailVerifiedByProvider: spec.emailVerifiedByProvider,
          mapping: spec.mapping,
        },
      };
    case 'saml':
      return {
        protocol: 'saml',
        keys: secrets.samlSp ?? { certificatePem: '', privateKeyPem: '' },
        config: {
          metadataXml: spec.metadataXml,
          metadataUrl: spec.metadataUrl,
          binding: spec.binding,
          signRequests: spec.signRequests,
          nameIdFormat: spec.nameIdFormat,
          transientMappingAttributeName: spec.transientMappingAttributeName,
          wantAssertionsSigned: !spec.allowUnsignedAssertions,
          mapping: spec.mapping,
        },
      };
    case 'ldap': {
      // the id attribute is a setting of its own for the LDAP module, not a mapped field
      const { id, ...mapping } = spec.mapping;
      return {
        protocol: 'ldap',
        secrets: { bindPassword: secrets.bindPassword ?? '' },
        config: {
          servers: spec.servers,
          startTls: spec.startTls,
          baseDn: spec.baseDn,
          bindDn: spec.bindDn,
          userObjectClasses: spec.userObjectClasses,
          userFilters: spec.userFilters,
          idAttribute: id || 'entryUUID',
          timeoutSeconds: spec.timeoutSeconds,
          rootCaPem: spec.rootCa,
          mapping,
        },
      };
    }
    default: {
      const { kind, scopes, ...rest } = spec;
      const apple =
        spec.kind === 'apple' && secrets.applePrivateKey
          ? { teamId: spec.teamId, keyId: spec.keyId, privateKeyPem: secrets.applePrivateKey }
          : undefined;
      return {
        protocol: 'oauth',
        secrets: { ...oauthSecrets, apple },
        config: fromTemplate({ template: kind, ...rest, ...(scopes.length ? { scopes } : {}) } as never),
      };
    }
  }
}
