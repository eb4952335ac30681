import { createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { TestServer } from './server';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const TT = {
  access: 'urn:ietf:params:oauth:token-type:access_token',
  refresh: 'urn:ietf:params:oauth:token-type:refresh_token',
  id: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  userId: 'urn:service:params:oauth:token-type:user_id',
};

/** A JWT-profile assertion signed with jose. */
export async function assertion(
  server: TestServer,
  m: { id: string; keyId: string; privateKey: string },
  over: {
    aud?: string;
    iat?: number;
    exp?: number;
    jti?: string | null;
    iss?: string;
    sub?: string;
    kid?: string;
    key?: string;
  } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    iss: over.iss ?? m.id,
    sub: over.sub ?? m.id,
    aud: over.aud ?? server.url,
    iat: over.iat ?? now,
    exp: over.exp ?? now + 300,
  };
  if (over.jti !== null) claims.jti = over.jti ?? randomUUID();
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: over.kid ?? m.keyId })
    .sign(createPrivateKey(over.key ?? m.privateKey));
}

export function otherRsaKey(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
}

export const audScope = (projectId: string) => `urn:service:iam:org:project:id:${projectId}:aud`;

export function decodePayload(jwt: string): Record<string, any> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
}
