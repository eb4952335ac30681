import { loadMasterKey } from '../crypto/keys/master-key';
import { type Deps, sourceOf } from '../deps';
import { systemPrincipal } from '../authz/principal';
import { Principal } from '../authz/principal';
import type { Ctx } from '../domain/context';
import type { OidcEnv } from '../domain/oidc/env';
import type { ClientSource } from '../domain/oidc/client-metadata/resolve';

/** The issuer is read on every call: it is the external URL (tests set it after the port is known). */
export function oidcEnv(deps: Deps): OidcEnv {
  return {
    issuer: deps.config.externalUrl,
    masterKey: loadMasterKey(deps.config),
    assertionMaxLifetimeS: deps.config.assertionMaxLifetimeS,
  };
}

/** Domain context of a protocol request: the server acts, the end user (when known) is the editor. */
export function oidcCtx(deps: Deps, service: string, userId?: string, orgId = ''): Ctx {
  return {
    db: deps.database.db,
    runtime: deps.runtime,
    instanceId: deps.instanceId,
    principal: userId ? new Principal(userId, orgId, []) : systemPrincipal(deps.instanceId, service),
    service,
    origin: new URL(deps.config.externalUrl).origin,
  };
}

/** Where a presented client_id is looked up (applications, or metadata documents when enabled). */
export function clientSource(deps: Deps): ClientSource {
  return { ...sourceOf(deps), instanceId: deps.instanceId, issuer: deps.config.externalUrl };
}
