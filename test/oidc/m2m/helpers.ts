import { createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import * as client from 'openid-client';
import { addKey, addSecret } from '../../../src/domain/user/credentials';
import { createUser } from '../../../src/domain/user/create-user';
import type { TestServer } from '../../helpers/server';
import { defaultOrg, systemCtx } from '../helpers';

let counter = 0;
const unique = (p: string) => `${p}${Date.now().toString(36)}${(counter++).toString(36)}`;

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const TT = {
  access: 'urn:ietf:params:oauth:token-type:access_token',
  refresh: 'urn:ietf:params:oauth:token-type:refresh_token',
  id: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  userId: 'urn:service:params:oauth:token-type:user_id',
};

/** A machine user with a client secret and a server-generated key (key file). */
export async function addMachine(
  server: TestServer,
  opts: { accessTokenType?: 'BEARER' | 'JWT'; orgId?: string; keyExpiresAt?: Date } = {},
) {
  const ctx = systemCtx(server);
  const username = unique('svc');
  const { id } = await createUser(ctx, {
    orgId: opts.orgId ?? (await defaultOrg(server)),
    username,
    machine: { name: username, accessTokenType: opts.accessTokenType ?? 'BEARER' },
  });
  const { clientSecret } = await addSecret(ctx, { userId: id });
  const { keyId, keyFile } = await addKey(ctx, { userId: id, expiresAt: opts.keyExpiresAt });
  return { id, username, clientSecret, keyId, privateKey: keyFile!.key };
}

/** openid-client configuration of a machine user (client id = username). */
export async function machineConfig(
  server: TestServer,
  m: { username: string; clientSecret: string },
  auth: 'basic' | 'post' = 'basic',
) {
  return client.discovery(
    new URL(server.url),
    m.username,
    m.clientSecret,
    auth === 'basic' ? client.ClientSecretBasic(m.clientSecret) : client.ClientSecretPost(m.clientSecret),
    { execute: [client.allowInsecureRequests] },
  );
}

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

export async function form(
  server: TestServer,
  path: string,
  body: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any> };
}

export const audScope = (projectId: string) => `urn:service:iam:org:project:id:${projectId}:aud`;

export function decodePayload(jwt: string): Record<string, any> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
}
