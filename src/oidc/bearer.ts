import { registerBearerResolver } from '../authz/authenticate';
import { loadMasterKey } from '../crypto/keys/master-key';
import type { Deps } from '../deps';
import { findActiveAccessToken } from '../domain/oidc/token-lookup';

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
    return at ? { userId: at.userId, clientId: at.clientId, scopes: at.scopes } : undefined;
  });
}
let registeredOnce = false;
