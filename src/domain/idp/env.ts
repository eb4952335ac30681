import type { Config } from '../../config';
import { loadMasterKey } from '../../crypto/keys/master-key';

/** What identity-provider rules need from the server's settings. */
export interface IdpEnv {
  /** encrypts provider secrets and kept upstream tokens */
  masterKey: Buffer;
  /** Portcullis's public URL: callback, assertion consumer service and SP metadata URLs derive from it */
  externalUrl: string;
}

/** The redirect URI registered at every OpenID Connect / OAuth upstream (one for all providers). */
export const oauthCallbackUrl = (env: Pick<IdpEnv, 'externalUrl'>) => `${env.externalUrl}/idps/callback`;
/** Where a SAML IdP posts its responses for provider `id`. */
export const samlAcsUrl = (env: Pick<IdpEnv, 'externalUrl'>, id: string) => `${env.externalUrl}/idps/${id}/saml/acs`;
/** Portcullis's SP metadata for provider `id`; also its SAML entity id. */
export const samlMetadataUrl = (env: Pick<IdpEnv, 'externalUrl'>, id: string) =>
  `${env.externalUrl}/idps/${id}/saml/metadata`;

/** The settings identity-provider rules read, from the server's configuration. */
export function idpEnvOf(config: Pick<Config, 'masterKey' | 'dataDir' | 'inMemory' | 'externalUrl'>): IdpEnv {
  return { masterKey: loadMasterKey(config), externalUrl: config.externalUrl };
}
