// placeholder until the OAuth module lands
import type { ExternalUser, UpstreamTokens } from '../external-user';
import type { OAuthProviderConfig, OAuthProviderSecrets } from './config';
export async function authorizationUrl(
  _c: OAuthProviderConfig,
  _s: OAuthProviderSecrets,
  _p: { redirectUri: string; state: string; nonce: string; codeVerifier: string; loginHint?: string },
): Promise<{ url: string; responseMode?: 'form_post' }> {
  throw new Error('not yet');
}
export async function completeAuthorization(
  _c: OAuthProviderConfig,
  _s: OAuthProviderSecrets,
  _p: { redirectUri: string; callbackParams: URLSearchParams; state: string; nonce: string; codeVerifier: string },
): Promise<{ user: ExternalUser; tokens: UpstreamTokens }> {
  throw new Error('not yet');
}
