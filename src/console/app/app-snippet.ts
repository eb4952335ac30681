/** How a client authenticates at the token endpoint, as the snippet spells it in openid-client. */
export type SnippetAuth = 'basic' | 'post' | 'none' | 'key';

const AUTH: Record<SnippetAuth, string> = {
  basic: 'client.ClientSecretBasic(process.env.PORTCULLIS_CLIENT_SECRET)',
  post: 'client.ClientSecretPost(process.env.PORTCULLIS_CLIENT_SECRET)',
  none: 'client.None()',
  key: 'client.PrivateKeyJwt(privateKey, { kid: keyId })',
};

/**
 * A relying party for one OIDC application with openid-client (v6): discovery at the issuer, then the
 * authorization code flow with PKCE in two functions, the web framework's part left to the reader. The
 * client id, issuer and redirect URI are the application's; a secret is never in it, only the variable
 * it is read from. An issuer on plain http (a development machine) gets openid-client's permission for it.
 */
export function openidClientSnippet(o: {
  issuer: string;
  clientId: string;
  redirectUri: string;
  auth: SnippetAuth;
}): string {
  const insecure = o.issuer.startsWith('http:')
    ? `\n  // ${o.issuer} is plain http: allowed for development only\n  { execute: [client.allowInsecureRequests] },`
    : '';
  const s = JSON.stringify;
  const key =
    o.auth === 'key'
      ? `import { importPKCS8 } from 'jose';
import keyFile from './application-key.json' with { type: 'json' };

// the application key downloaded from the console (its Keys tab)
const privateKey = await importPKCS8(keyFile.key, 'RS256');
const keyId = keyFile.keyId;
`
      : '';
  return `import * as client from 'openid-client';
${key}
const config = await client.discovery(
  new URL(${s(o.issuer)}),
  ${s(o.clientId)},
  undefined,
  ${AUTH[o.auth]},${insecure}
);

/** Where to send the browser to sign in; keep codeVerifier and state in the user's session. */
export async function signInUrl() {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: ${s(o.redirectUri)},
    scope: 'openid profile email',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  });
  return { url, codeVerifier, state };
}

/** At the redirect URI: the signed-in user's claims, for the URL the browser came back with. */
export async function callback(currentUrl, { codeVerifier, state }) {
  const tokens = await client.authorizationCodeGrant(config, currentUrl, {
    pkceCodeVerifier: codeVerifier,
    expectedState: state,
  });
  return tokens.claims();
}
`;
}
