import type { Interceptor } from '@connectrpc/connect';
import { authenticateBearer } from '../../authz/authenticate';
import { type Deps, sourceOf } from '../../deps';
import { principalKey } from '../context';

/** Services that answer without a token (server reflection: it only describes the API). */
const PUBLIC_SERVICES = new Set(['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection']);

/** Resolves `Authorization: Bearer …` (or `DPoP …` with a proof) into the principal every handler reads. */
export function authInterceptor(deps: Deps): Interceptor {
  return (next) => async (req) => {
    if (!PUBLIC_SERVICES.has(req.service.typeName)) {
      // htu of a DPoP proof: the external URL of the RPC path (RFC 9449 §4.3), whatever host the proxy used
      const principal = await authenticateBearer(sourceOf(deps), req.header.get('authorization'), {
        proof: req.header.get('dpop') ?? undefined,
        method: req.requestMethod,
        url: `${deps.config.externalUrl}/${req.service.typeName}/${req.method.name}`,
      });
      req.contextValues.set(principalKey, principal);
    }
    return next(req);
  };
}
