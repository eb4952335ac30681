import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import { ANONYMOUS, type Principal } from '../authz/principal';
import type { Deps } from '../deps';
import type { Ctx } from '../domain/context';

export const principalKey = createContextKey<Principal>(ANONYMOUS, { description: 'authenticated caller' });

/** The domain context of an RPC: its caller and the procedure name as the editing service. */
export function ctxOf(deps: Deps, hc: HandlerContext): Ctx {
  return {
    db: deps.database.db,
    instanceId: deps.instanceId,
    principal: hc.values.get(principalKey),
    service: `${hc.service.typeName}/${hc.method.name}`,
  };
}
