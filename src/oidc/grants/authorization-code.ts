import { redeemAuthorizationCode } from '../../domain/oidc/codes';
import { findGrant } from '../../domain/oidc/grants';
import { issueGrantTokens } from '../../domain/oidc/token-issuance';
import { invalidGrant, invalidRequest } from '../../domain/oidc/oauth-errors';
import { oidcCtx } from '../env';
import { narrowAudience } from '../../domain/oidc/resources';
import { type GrantType, param, refreshJktOf, requestedResources } from './types';

/** grant_type=authorization_code: redeem the code (single use, bound), then issue the grant's tokens. */
export const authorizationCode: GrantType = {
  authMethods: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
  appGrantType: 'AUTHORIZATION_CODE',
  async handle(req) {
    const { client } = req.client!;
    const code = param(req, 'code');
    if (!code) throw invalidRequest('code is missing');
    const redirectUri = param(req, 'redirect_uri');
    if (!redirectUri) throw invalidRequest('redirect_uri is missing');
    const codeVerifier = param(req, 'code_verifier');
    if (req.client!.method === 'none' && !codeVerifier)
      throw invalidGrant('public clients must send code_verifier (PKCE)');
    const resources = await requestedResources(req);
    const ctx = oidcCtx(req.deps, 'oidc/token');
    const { grantId, nonce } = await redeemAuthorizationCode(ctx, {
      code,
      clientId: client.clientId,
      redirectUri,
      codeVerifier,
      dpopJkt: req.dpop?.jkt,
    });
    const grant = await findGrant(ctx, grantId);
    if (!grant || grant.revokedAt) throw invalidGrant('the grant of this code is revoked');
    const withRefresh = grant.scopes.includes('offline_access') && !!client.oidc?.grantTypes.includes('REFRESH_TOKEN');
    return issueGrantTokens(oidcCtx(req.deps, 'oidc/token', grant.userId), req.env, {
      client,
      grant,
      scopes: grant.scopes,
      refreshScopes: grant.scopes,
      nonce,
      withRefresh,
      audience: resources && narrowAudience(grant.audience, resources),
      dpopJkt: req.dpop?.jkt,
      refreshJkt: refreshJktOf(req),
    });
  },
};
