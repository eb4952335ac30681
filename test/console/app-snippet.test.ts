import { describe, expect, it } from 'vitest';
import { openidClientSnippet } from '../../src/console/app/app-snippet';

/** The application page's openid-client code: each way of authenticating, http only where the issuer is. */
describe('console: openid-client code for an application', () => {
  const base = { issuer: 'https://id.example.com', clientId: '123@shop', redirectUri: 'https://shop.example/cb' };

  it('reads a secret from the environment, never holds one', () => {
    const code = openidClientSnippet({ ...base, auth: 'basic' });
    expect(code).toContain('client.ClientSecretBasic(process.env.PORTCULLIS_CLIENT_SECRET)');
    expect(code).toContain('new URL("https://id.example.com")');
    expect(code).toContain('"123@shop"');
    expect(code).toContain('redirect_uri: "https://shop.example/cb"');
    expect(code).not.toContain('allowInsecureRequests');
    expect(openidClientSnippet({ ...base, auth: 'post' })).toContain('client.ClientSecretPost(');
  });

  it('a public client sends no secret; a key client signs with its downloaded key', () => {
    const none = openidClientSnippet({ ...base, auth: 'none' });
    expect(none).toContain('client.None()');
    expect(none).not.toContain('PORTCULLIS_CLIENT_SECRET');
    const key = openidClientSnippet({ ...base, auth: 'key' });
    expect(key).toContain("importPKCS8(keyFile.key, 'RS256')");
    expect(key).toContain('client.PrivateKeyJwt(privateKey, { kid: keyId })');
  });

  it('allows plain http only for an issuer on http', () => {
    const code = openidClientSnippet({ ...base, issuer: 'http://localhost:8080', auth: 'basic' });
    expect(code).toContain('{ execute: [client.allowInsecureRequests] }');
  });
});
