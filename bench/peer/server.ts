import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/**
 * node-oidc-provider configured for the same work as Portcullis in the m2m and oidc scenarios:
 * client credentials with JWT access tokens (RS256 and ES256) and opaque ones, introspection of opaque
 * tokens, and userinfo. Production mode, its default (in-memory) adapter — its fastest — in one
 * process (that adapter cannot be shared between processes). Prints one JSON line when ready.
 */
const port = Number(process.env.PORT ?? 0);
const issuer = `http://127.0.0.1:${port}`;
const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef';

const rsa = await generateKeyPair('RS256', { extractable: true });
const ec = await generateKeyPair('ES256', { extractable: true });
const keys = [
  { ...(await exportJWK(rsa.privateKey)), kid: 'rs', alg: 'RS256', use: 'sig' },
  { ...(await exportJWK(ec.privateKey)), kid: 'es', alg: 'ES256', use: 'sig' },
];

const ccClient = (client_id: string) => ({
  client_id,
  client_secret: SECRET,
  grant_types: ['client_credentials'],
  response_types: [],
  redirect_uris: [],
  token_endpoint_auth_method: 'client_secret_basic',
});

const provider = new Provider(issuer, {
  clients: [
    ccClient('cc-rs256'),
    ccClient('cc-es256'),
    ccClient('cc-opaque'),
    {
      client_id: 'web',
      client_secret: SECRET,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1/cb'],
    },
  ],
  jwks: { keys } as any,
  findAccount: async (_ctx: unknown, sub: string) => ({
    accountId: sub,
    claims: async () => ({
      sub,
      name: 'Bench User',
      given_name: 'Bench',
      family_name: 'User',
      email: `${sub}@example.com`,
      email_verified: true,
    }),
  }),
  claims: { openid: ['sub'], profile: ['name', 'given_name', 'family_name'], email: ['email', 'email_verified'] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'urn:bench:api',
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx: unknown, _resource: string, client: { clientId: string }) => ({
        scope: 'api',
        accessTokenTTL: 3600,
        accessTokenFormat: client.clientId === 'cc-opaque' ? 'opaque' : 'jwt',
        jwt: { sign: { alg: client.clientId === 'cc-es256' ? 'ES256' : 'RS256' } },
      }),
    },
  },
} as any);
provider.proxy = false;

const server = provider.listen(port, '127.0.0.1');
await new Promise((r) => server.once('listening', r));

// Access tokens for userinfo, minted the way the provider does after a login (a grant with the
// openid scopes, then an AccessToken bound to it), so that only the userinfo endpoint is measured.
const web = await provider.Client.find('web');
const userinfoTokens: string[] = [];
for (let i = 0; i < 200; i++) {
  const accountId = `user-${i}`;
  const grant = new provider.Grant({ accountId, clientId: 'web' });
  grant.addOIDCScope('openid profile email');
  const grantId = await grant.save();
  const at = new provider.AccessToken({
    accountId,
    client: web,
    grantId,
    scope: 'openid profile email',
    gty: 'authorization_code',
  } as any);
  userinfoTokens.push(await at.save());
}
process.stdout.write(`${JSON.stringify({ ready: true, issuer, secret: SECRET, userinfoTokens })}\n`);
