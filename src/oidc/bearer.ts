import { registerBearerResolver } from '../authz/authenticate';
import { loadMasterKey } from '../crypto/keys/master-key';
import type { Deps } from '../deps';
import { isMachineToken } from '../domain/oidc/m2m/tokens';
import { API_AUDIENCE } from '../domain/oidc/scopes';
import { type ActiveAccessToken, findActiveAccessToken } from '../domain/oidc/token-lookup';

const depsByDb = new WeakMap<object, Deps>();

/**
 * Lets the v2 API accept our access tokens (JWT and opaque) as bearer tokens. The resolver is
 * registered once per process; each server's database handle finds its own issuer and master key.
 */
export function registerOidcBearer(deps: Deps): void {
  if (depsByDb.has(deps.database.db)) return;
  const first = !registeredOnce;
  registeredOnce = true;
  depsByDb.set(deps.database.db, deps);
  if (!first) return;
  registerBearerResolver(async (db, token) => {
    const d = depsByDb.get(db);
    if (!d) return undefined;
    const at = await findActiveAccessToken(db, loadMasterKey(d.config), d.config.externalUrl, token);
    if (!at || !acceptedByApi(at)) return undefined;
    return { userId: at.userId, clientId: at.clientId, scopes: at.scopes };
  });
}
let registeredOnce = false;

/**
 * The API takes a machine user's own token (client credentials, JWT profile), or a user's access
 * token whose audience names the API (API_AUDIENCE_SCOPE). A token that a relying party got for
 * itself is not accepted, however privileged its user.
 */
function acceptedByApi(at: ActiveAccessToken): boolean {
  return isMachineToken(at) || at.audience.includes(API_AUDIENCE);
}
