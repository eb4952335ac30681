import { redeemDeviceCode } from '../../domain/oidc/device/poll';
import { issueGrantTokens } from '../../domain/oidc/token-issuance';
import { oidcCtx } from '../env';
import { type GrantType, refreshJktOf, requiredParam } from './types';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4): the device polls with its
 * code; once the user approved, the tokens of the grant the approval created, as after a code exchange.
 */
export const deviceCode: GrantType = {
  authMethods: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
  appGrantType: 'DEVICE_CODE',
  async handle(req) {
    const { client } = req.client!;
    const code = requiredParam(req, 'device_code');
    const grant = await redeemDeviceCode(oidcCtx(req.deps, 'oidc/token'), client.clientId, code);
    const withRefresh = grant.scopes.includes('offline_access') && !!client.oidc?.grantTypes.includes('REFRESH_TOKEN');
    return issueGrantTokens(oidcCtx(req.deps, 'oidc/token', grant.userId), req.env, {
      client,
      grant,
      scopes: grant.scopes,
      refreshScopes: grant.scopes,
      nonce: null,
      withRefresh,
      dpopJkt: req.dpop?.jkt,
      refreshJkt: refreshJktOf(req),
    });
  },
};
