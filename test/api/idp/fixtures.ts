import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { CreateIdentityProviderRequestSchema } from '../../../gen/portcullis/idp/v2/identity_provider_service_pb';

export type ConfigInit = MessageInitShape<typeof CreateIdentityProviderRequestSchema>['config'];

/** A real IdP metadata document: HTTP-Redirect and HTTP-POST sign-on and a signing certificate. */
export const SAML_METADATA = readFileSync(join(__dirname, '../../fixtures/idp/saml-idp-metadata.xml'), 'utf8');

/** A fresh P-256 key as PKCS#8 PEM (Apple's key and private_key_jwt take this form). */
export function p256Pem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
}

/** A generic OpenID Connect upstream with a client secret: the most common provider. */
export function oidcConfig(clientSecret = 'oidc-client-secret-s3cr3t'): ConfigInit {
  return {
    case: 'genericOidc',
    value: { issuer: 'https://accounts.example.com', clientId: 'portcullis-client', clientSecret },
  };
}

/** An LDAP directory with a service account. */
export function ldapConfig(bindPassword = 'ldap-bind-passw0rd'): ConfigInit {
  return {
    case: 'ldap',
    value: {
      servers: ['ldap://127.0.0.1:389'],
      baseDn: 'ou=people,dc=example,dc=com',
      bindDn: 'cn=reader,dc=example,dc=com',
      bindPassword,
      userObjectClasses: ['inetOrgPerson'],
      userFilters: ['uid', 'mail'],
    },
  };
}
