import { JWT_BEARER_GRANT } from '../../domain/oidc/m2m/assertion';
import { jwtProfileTokens } from '../../domain/oidc/m2m/grants';
import { pruneMachineRows } from '../../domain/oidc/m2m/replay';
import type { Job } from '../../jobs';
import { invalidRequest } from '../../domain/oidc/oauth-errors';
import { oidcCtx } from '../env';
import { type GrantType, param, requiredParam } from './types';

/**
 * grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer (JWT profile): the assertion, signed with
 * a key of the machine user, is the authentication; client authentication is not needed (when
 * a client does authenticate, the tokens are issued to it).
 */
export const jwtBearer: GrantType = {
  authMethods: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
  clientAuth: 'optional',
  async handle(req) {
    const assertion = param(req, 'assertion');
    if (!assertion) throw invalidRequest('assertion is missing');
    return jwtProfileTokens(
      oidcCtx(req.deps, 'oidc/token'),
      req.env,
      assertion,
      requiredParam(req, 'scope'),
      req.client?.client.clientId,
      req.dpop?.jkt,
    );
  },
};

export { JWT_BEARER_GRANT };

// Used assertion ids, used DPoP proof ids and revocations of machine tokens are kept only until they expire.
export const m2mCleanupJob: Job = {
  name: 'm2m-cleanup',
  intervalMs: 60_000,
  async run(deps) {
    await pruneMachineRows(deps.database.db);
  },
};
