import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import { ANONYMOUS, type Principal } from '../authz/principal';
import type { Db } from '../db/client';
import type { Deps } from '../deps';
import type { Ctx } from '../domain/context';

export const principalKey = createContextKey<Principal>(ANONYMOUS, { description: 'authenticated caller' });
/** Where this RPC reads, when the read-routing interceptor chose (a read replica or the primary). */
export const readDbKey = createContextKey<Db | undefined>(undefined, { description: 'database of a read' });

/** The domain context of an RPC: its caller and the procedure name as the editing service. */
export function ctxOf(deps: Deps, hc: HandlerContext): Ctx {
  return {
    db: hc.values.get(readDbKey) ?? deps.database.db,
    runtime: deps.runtime,
    instanceId: deps.instanceId,
    principal: hc.values.get(principalKey),
    service: `${hc.service.typeName}/${hc.method.name}`,
    origin: new URL(deps.config.externalUrl).origin,
  };
}
