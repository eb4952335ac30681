import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { CreateIdentityProviderRequestSchema } from '../../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { loadMasterKey } from '../../../src/crypto/keys/master-key';
import { idpIntents } from '../../../src/db/schema/index';
import type { ExternalUser, UpstreamTokens } from '../../../src/domain/idp/external-user';
import { providerForSignIn } from '../../../src/domain/idp/intents/provider-for-sign-in';
import { type FinishedIntent, succeedIntent } from '../../../src/domain/idp/intents/succeed';
import { newId } from '../../../src/domain/ids';
import { systemCtx } from '../../helpers/context';
import type { TestServer } from '../../helpers/server';

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

/**
 * An intent as the upstream's callback leaves it (SUCCEEDED, with a token): the protocol modules that
 * run real callbacks are tested on their own, so the API's use of an intent is tested from here.
 */
export async function finishedIntent(
  server: TestServer,
  idpId: string,
  user: ExternalUser,
  tokens?: UpstreamTokens,
): Promise<FinishedIntent> {
  const { db } = server.app.database;
  const masterKey = loadMasterKey(server.app.config);
  const provider = await providerForSignIn(db, masterKey, idpId);
  const [row] = await db
    .insert(idpIntents)
    .values({ id: newId(), idpId, expiresAt: new Date(Date.now() + 60_000) })
    .returning();
  return succeedIntent(systemCtx(server), masterKey, row, provider, user, tokens);
}
