// A web app that signs its users in with Portcullis: node:http and openid-client 6, nothing else.
import http from 'node:http';
import * as oidc from 'openid-client';

const { ISSUER = 'http://localhost:8080', CLIENT_ID, CLIENT_SECRET, APP_URL = 'http://localhost:3000' } = process.env;
const insecure = ISSUER.startsWith('http:') ? { execute: [oidc.allowInsecureRequests] } : {}; // your own machine only
const config = await oidc.discovery(new URL(ISSUER), CLIENT_ID, CLIENT_SECRET, undefined, insecure);
const verifiers = new Map(); // state → PKCE code verifier of each sign-in under way

const app = http.createServer(async (req, res) => {
  const url = new URL(req.url, APP_URL);
  if (url.pathname === '/callback') {
    const state = url.searchParams.get('state');
    try {
      const checks = { pkceCodeVerifier: verifiers.get(state), expectedState: state };
      const tokens = await oidc.authorizationCodeGrant(config, url, checks);
      const user = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims().sub);
      res.end(`Signed in as ${user.preferred_username}\n`);
    } catch (e) {
      res.writeHead(400).end(`Sign-in failed: ${e.message}\n`);
    }
    return verifiers.delete(state);
  }
  const state = oidc.randomState();
  const verifier = oidc.randomPKCECodeVerifier();
  verifiers.set(state, verifier);
  const params = { redirect_uri: `${APP_URL}/callback`, scope: 'openid profile', state, code_challenge_method: 'S256' };
  params.code_challenge = await oidc.calculatePKCECodeChallenge(verifier);
  res.writeHead(302, { location: oidc.buildAuthorizationUrl(config, params).href }).end();
});
app.listen(new URL(APP_URL).port || 80, () => console.log(`Open ${APP_URL} to sign in`));
