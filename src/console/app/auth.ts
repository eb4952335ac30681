import * as oauth from 'oauth4webapi';

/**
 * Sign-in as an OIDC public client of this instance: authorization code with PKCE, tokens in memory
 * only (a reload signs in again, silently while the login session lasts), refresh tokens rotated by
 * the server on every use. Only the PKCE verifier and state survive the redirect, in sessionStorage.
 */

export interface AuthConfig {
  issuer: string;
  clientId: string;
  /** where the authorization response lands: /ui/console/callback or /ui/account/callback */
  redirectUri: string;
  /** where the end-session endpoint sends the browser back to */
  home: string;
}

/** The v2 API takes a user's token only when its audience names the API. */
const SCOPE = 'openid profile email offline_access urn:service:iam:org:project:id:api:aud';
const PENDING = 'portcullis.signin';
/** Refresh this long before the access token expires. */
const EARLY_MS = 30_000;

export interface SignedIn {
  userId: string;
  /** the login session the tokens come from (the ID token's sid), so the account page can mark it */
  sessionId?: string;
  name: string;
  accessToken: () => Promise<string>;
  signOut: () => void;
}

export async function signIn(cfg: AuthConfig): Promise<SignedIn | undefined> {
  const issuer = new URL(cfg.issuer);
  const insecure = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const client: oauth.Client = { client_id: cfg.clientId };
  const here = new URL(location.href);
  if (here.pathname !== new URL(cfg.redirectUri).pathname) {
    await startSignIn(as, cfg, `${here.pathname}${here.search}`);
    return undefined;
  }
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as {
    verifier: string;
    state: string;
    returnTo: string;
  } | null;
  sessionStorage.removeItem(PENDING);
  if (!pending) {
    await startSignIn(as, cfg, new URL(cfg.home).pathname);
    return undefined;
  }
  const params = oauth.validateAuthResponse(as, client, here, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    cfg.redirectUri,
    pending.verifier,
    insecure,
  );
  let tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  const claims = oauth.getValidatedIdTokenClaims(tokens)!;
  const idToken = tokens.id_token!;
  // The ID token names only the subject; the person's name comes from userinfo (profile scope).
  const info = await oauth.processUserInfoResponse(
    as,
    client,
    claims.sub,
    await oauth.userInfoRequest(as, client, tokens.access_token, insecure),
  );
  history.replaceState(null, '', pending.returnTo);

  let expiresAt = Date.now() + (tokens.expires_in ?? 0) * 1000;
  let refreshing: Promise<void> | undefined;
  const refresh = async () => {
    const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    tokens = await oauth.processRefreshTokenResponse(as, client, res);
    expiresAt = Date.now() + (tokens.expires_in ?? 0) * 1000;
  };
  return {
    userId: claims.sub,
    sessionId: typeof claims.sid === 'string' ? claims.sid : undefined,
    name: String(info.name ?? info.preferred_username ?? claims.sub),
    async accessToken() {
      if (tokens.refresh_token && Date.now() > expiresAt - EARLY_MS) {
        // one refresh at a time: the refresh token rotates, a second use would revoke the grant
        refreshing ??= refresh().finally(() => {
          refreshing = undefined;
        });
        await refreshing;
      }
      return tokens.access_token;
    },
    signOut() {
      const url = new URL(as.end_session_endpoint!);
      url.searchParams.set('id_token_hint', idToken);
      url.searchParams.set('post_logout_redirect_uri', cfg.home);
      location.assign(url);
    },
  };
}

async function startSignIn(as: oauth.AuthorizationServer, cfg: AuthConfig, returnTo: string) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, returnTo }));
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set('client_id', cfg.clientId);
  url.searchParams.set('redirect_uri', cfg.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', SCOPE);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('ui_locales', document.documentElement.lang);
  location.assign(url);
}
