import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { personalAccessTokens, users } from '../db/schema/index';
import { sha256Hex } from '../crypto/random';
import { unauthenticated } from '../domain/errors';
import { membershipsOf } from './memberships';
import { Principal } from './principal';

/**
 * Resolves a bearer token that is not a PAT (an access token issued by the OIDC layer). The OIDC
 * module registers one at start-up; returns undefined when the token is not one of its own.
 */
export type BearerResolver = (db: Db, token: string) => Promise<{ userId: string; clientId?: string; scopes?: string[] } | undefined>;
const resolvers: BearerResolver[] = [];

export function registerBearerResolver(resolver: BearerResolver): void {
  resolvers.push(resolver);
}

/**
 * Turns `Authorization: Bearer <token>` into a principal: the user, their organization and their
 * administrator memberships. A missing, unknown, expired or revoked token, or a user that is not
 * active, is UNAUTHENTICATED.
 */
export async function authenticateBearer(db: Db, authorization: string | null | undefined): Promise<Principal> {
  const token = parseBearer(authorization);
  if (!token) throw unauthenticated('missing bearer token: send "Authorization: Bearer <token>"');
  let identity: { userId: string; clientId?: string; scopes?: string[]; kind: 'pat' | 'access_token' } | undefined;
  if (token.startsWith('pcp_')) {
    const [row] = await db
      .select({ userId: personalAccessTokens.userId, expiresAt: personalAccessTokens.expiresAt })
      .from(personalAccessTokens)
      .where(eq(personalAccessTokens.tokenHash, sha256Hex(token)));
    if (row && (!row.expiresAt || row.expiresAt.getTime() > Date.now())) identity = { userId: row.userId, kind: 'pat' };
  } else {
    for (const resolve of resolvers) {
      const found = await resolve(db, token);
      if (found) {
        identity = { ...found, kind: 'access_token' };
        break;
      }
    }
  }
  if (!identity) throw unauthenticated('the token is invalid or expired');
  const [user] = await db
    .select({ orgId: users.orgId, state: users.state })
    .from(users)
    .where(and(eq(users.id, identity.userId)));
  if (!user || (user.state !== 'ACTIVE' && user.state !== 'INITIAL')) throw unauthenticated('the token is invalid or expired');
  const memberships = await membershipsOf(db, identity.userId);
  return new Principal(identity.userId, user.orgId, memberships, {
    kind: identity.kind,
    clientId: identity.clientId,
    scopes: identity.scopes,
  });
}

export function parseBearer(authorization: string | null | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^Bearer\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(authorization);
  return m?.[1];
}
