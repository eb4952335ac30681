import type { Interceptor } from '@connectrpc/connect';
import { authenticateBearer } from '../../authz/authenticate';
import type { Deps } from '../../deps';
import { principalKey } from '../context';

/** Services that answer without a token (server reflection: it only describes the API). */
const PUBLIC_SERVICES = new Set(['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection']);

/** Resolves `Authorization: Bearer …` into the principal every handler reads from its context. */
export function authInterceptor(deps: Deps): Interceptor {
  return (next) => async (req) => {
    if (!PUBLIC_SERVICES.has(req.service.typeName)) {
      const principal = await authenticateBearer(deps.database.db, req.header.get('authorization'));
      req.contextValues.set(principalKey, principal);
    }
    return next(req);
  };
}
