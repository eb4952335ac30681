import { loadMasterKey } from '../../crypto/keys/master-key';
import type { Deps } from '../../deps';
import type { IdpEnv } from '../../domain/idp/env';

/** What the identity-provider rules need from the server's settings, for the v2 handlers. */
export function idpEnvOf(deps: Deps): IdpEnv {
  return { masterKey: loadMasterKey(deps.config), externalUrl: deps.config.externalUrl };
}
