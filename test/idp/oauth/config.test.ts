import { exportPKCS8, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { DomainError, fieldOf } from '../../../src/domain/errors';
import { checkOAuthConfig, type OAuthProviderSecrets } from '../../../src/domain/idp/oauth/config';

const oidc = { protocol: 'oidc', issuer: 'https://idp.example', clientId: 'rp', clientAuth: 'client_secret_basic' };
const oauth = {
  protocol: 'oauth',
  authorizationEndpoint: 'https://idp.example/authorize',
  tokenEndpoint: 'https://idp.example/token',
  userinfoEndpoint: 'https://idp.example/user',
  idAttribute: 'id',
  clientId: 'rp',
  clientAuth: 'client_secret_post',
  scopes: ['read'],
};
const secret = { clientSecret: 's3cret' };

/** The API field an invalid_argument error names. */
function fieldOfError(c: unknown, secrets: OAuthProviderSecrets = secret): string | undefined {
  try {
    checkOAuthConfig(c, secrets);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe('invalid_argument');
    return fieldOf(err as DomainError);
  }
  throw new Error('the configuration was accepted');
}

let ecPem: string;
let rsaPem: string;
beforeAll(async () => {
  ecPem = await exportPKCS8((await generateKeyPair('ES256', { extractable: true })).privateKey);
  rsaPem = await exportPKCS8((await generateKeyPair('RS256', { extractable: true })).privateKey);
});

describe('checkOAuthConfig', () => {
  it('fills in the defaults: PKCE on, userinfo off, OpenID scopes, nothing vouched for', () => {
    expect(checkOAuthConfig(oidc, secret)).toEqual({
      protocol: 'oidc',
      template: undefined,
      issuer: 'https://idp.example',
      clientId: 'rp',
      clientAuth: 'client_secret_basic',
      scopes: ['openid', 'profile', 'email'],
      usePkce: true,
      useUserinfo: false,
      emailVerifiedByProvider: false,
      mapping: {},
    });
    expect(checkOAuthConfig(oauth, secret).idAttribute).toBe('id');
  });

  it('plain http only for loopback hosts', () => {
    expect(fieldOfError({ ...oidc, issuer: 'http://idp.example' })).toBe('issuer');
    expect(fieldOfError({ ...oidc, issuer: 'http://10.0.0.1:8080' })).toBe('issuer');
    expect(fieldOfError({ ...oidc, issuer: 'http://127.0.0.1.evil.example' })).toBe('issuer');
    expect(fieldOfError({ ...oauth, tokenEndpoint: 'http://idp.example/token' })).toBe('token_endpoint');
    for (const issuer of ['http://127.0.0.1:8080', 'http://localhost:3000', 'http://[::1]:9000']) {
      expect(checkOAuthConfig({ ...oidc, issuer }, secret).issuer).toBe(issuer);
    }
  });

  it('names the missing or malformed field', () => {
    expect(fieldOfError({ ...oidc, issuer: undefined })).toBe('issuer');
    expect(fieldOfError({ ...oidc, issuer: 'not a url' })).toBe('issuer');
    expect(fieldOfError({ ...oidc, issuer: 'https://user:pw@idp.example' })).toBe('issuer');
    expect(fieldOfError({ ...oidc, clientId: '' })).toBe('client_id');
    expect(fieldOfError({ ...oidc, clientAuth: 'tls' })).toBe('client_auth');
    expect(fieldOfError({ ...oidc, scopes: ['email'] })).toBe('scopes');
    expect(fieldOfError({ ...oidc, scopes: ['openid email'] })).toBe('scopes');
    expect(fieldOfError({ ...oidc, usePkce: 'yes' })).toBe('use_pkce');
    expect(fieldOfError({ ...oidc, mapping: { password: 'x' } })).toBe('mapping.password');
    expect(fieldOfError({ ...oidc, mapping: { email: 'a..b' } })).toBe('mapping.email');
    expect(fieldOfError({ ...oauth, authorizationEndpoint: undefined })).toBe('authorization_endpoint');
    expect(fieldOfError({ ...oauth, userinfoEndpoint: undefined })).toBe('userinfo_endpoint');
    expect(fieldOfError({ ...oauth, idAttribute: undefined })).toBe('id_attribute');
    expect(fieldOfError({ ...oidc, protocol: 'saml' })).toBe('protocol');
    expect(() => checkOAuthConfig(null, secret)).toThrow(DomainError);
  });

  it('the client authentication method must have its secret', () => {
    expect(fieldOfError(oidc, {})).toBe('client_secret');
    expect(fieldOfError({ ...oidc, clientAuth: 'private_key_jwt' }, secret)).toBe('private_key');
    expect(fieldOfError({ ...oidc, clientAuth: 'private_key_jwt' }, { privateKey: { pem: 'junk', keyId: 'k' } })).toBe(
      'private_key',
    );
    expect(fieldOfError({ ...oidc, clientAuth: 'none', usePkce: false }, {})).toBe('use_pkce');
    expect(checkOAuthConfig({ ...oidc, clientAuth: 'none' }, {}).clientAuth).toBe('none');
    for (const pem of [ecPem, rsaPem]) {
      const c = checkOAuthConfig({ ...oidc, clientAuth: 'private_key_jwt' }, { privateKey: { pem, keyId: 'k' } });
      expect(c.clientAuth).toBe('private_key_jwt');
    }
  });

  it('Apple needs its ES256 signing key', () => {
    const apple = { ...oidc, template: 'apple', issuer: 'https://appleid.apple.com', clientAuth: 'client_secret_post' };
    expect(fieldOfError(apple, {})).toBe('apple_private_key');
    expect(fieldOfError(apple, { apple: { teamId: 'T', keyId: 'K', privateKeyPem: rsaPem } })).toBe(
      'apple_private_key',
    );
    expect(checkOAuthConfig(apple, { apple: { teamId: 'T', keyId: 'K', privateKeyPem: ecPem } }).template).toBe(
      'apple',
    );
  });
});
