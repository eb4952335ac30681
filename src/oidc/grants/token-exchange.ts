import { exchangeToken, TOKEN_EXCHANGE_GRANT } from '../../domain/oidc/impersonation/token-exchange';
import { oidcCtx } from '../env';
import { type GrantType, param, refreshJktOf } from './types';

/**
 * grant_type=urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693, spec §2.8): an application
 * allowed the TOKEN_EXCHANGE grant type trades a subject token (and an actor's token) for new
 * tokens; the rules are in domain/oidc/impersonation/token-exchange.ts.
 */
export const tokenExchange: GrantType = {
  authMethods: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
  appGrantType: 'TOKEN_EXCHANGE',
  async handle(req) {
    return exchangeToken(oidcCtx(req.deps, 'oidc/token'), req.env, {
      client: req.client!.client,
      subjectToken: param(req, 'subject_token'),
      subjectTokenType: param(req, 'subject_token_type'),
      actorToken: param(req, 'actor_token'),
      actorTokenType: param(req, 'actor_token_type'),
      requestedTokenType: param(req, 'requested_token_type'),
      scope: req.params.get('scope'),
      audience: param(req, 'audience'),
      resource: req.params.get('resource'),
      dpopJkt: req.dpop?.jkt,
      refreshJkt: refreshJktOf(req),
    });
  },
};

export { TOKEN_EXCHANGE_GRANT };
