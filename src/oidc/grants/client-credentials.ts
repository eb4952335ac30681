import { clientCredentialsTokens } from '../../domain/oidc/m2m/grants';
import { MACHINE_CLIENT_TYPE } from '../../domain/oidc/m2m/machines';
import { unauthorizedClient } from '../../domain/oidc/oauth-errors';
import { oidcCtx } from '../env';
import { type GrantType, requestedResources, requiredParam } from './types';

/**
 * grant_type=client_credentials: for machine users only. The client id is the machine user's
 * username and the secret its client secret (UserService AddSecret), sent with Basic or in the body;
 * applications are refused with unauthorized_client.
 */
export const clientCredentials: GrantType = {
  authMethods: ['client_secret_basic', 'client_secret_post'],
  async handle(req) {
    const { client } = req.client!;
    if (client.type !== MACHINE_CLIENT_TYPE) {
      throw unauthorizedClient(
        "client_credentials is for machine users: authenticate with the machine user's username and client secret",
      );
    }
    // §4.3: scope is a required parameter of the machine grants
    return clientCredentialsTokens(
      oidcCtx(req.deps, 'oidc/token'),
      req.env,
      client.applicationId,
      client.clientId,
      requiredParam(req, 'scope'),
      (await requestedResources(req))?.map((r) => r.uri),
      req.dpop?.jkt,
    );
  },
};
