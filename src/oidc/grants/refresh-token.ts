import { consumeRefreshToken } from '../../domain/oidc/refresh';
import { splitScopes } from '../../domain/oidc/scopes';
import { issueGrantTokens } from '../../domain/oidc/token-issuance';
import { invalidRequest } from '../../domain/oidc/oauth-errors';
import { oidcCtx } from '../env';
import { type GrantType, param, refreshJktOf, requestedResources } from './types';

/**
 * grant_type=refresh_token: rotate the refresh token (reuse revokes the grant), scope ⊆ original,
 * resource ⊆ the grant's audience (the refresh token keeps the whole grant).
 */
export const refreshToken: GrantType = {
  authMethods: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
  appGrantType: 'REFRESH_TOKEN',
  async handle(req) {
    const { client } = req.client!;
    const token = param(req, 'refresh_token');
    if (!token) throw invalidRequest('refresh_token is missing');
    const rawScope = req.params.get('scope');
    const requestedScopes = rawScope === undefined ? undefined : splitScopes(rawScope);
    const resources = await requestedResources(req);
    const ctx = oidcCtx(req.deps, 'oidc/token');
    const r = await consumeRefreshToken(ctx, {
      token,
      clientId: client.clientId,
      requestedScopes,
      resources,
      dpopJkt: req.dpop?.jkt,
    });
    return issueGrantTokens(oidcCtx(req.deps, 'oidc/token', r.grant.userId), req.env, {
      client,
      grant: r.grant,
      scopes: r.scopes,
      refreshScopes: r.tokenScopes,
      nonce: null,
      withRefresh: true,
      audience: r.audience,
      previousRefreshTokenId: r.refreshTokenId,
      dpopJkt: req.dpop?.jkt,
      // a bound refresh token was presented with a proof of its key, so the new one keeps that key
      refreshJkt: refreshJktOf(req),
    });
  },
};
