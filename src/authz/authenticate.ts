import { maySignIn, TOKEN_USE } from '../domain/session/may-sign-in';
import { sha256Hex } from '../crypto/random';
import { defineCache, invalidateAfterCommit } from '../domain/cache';
import type { Source } from '../domain/context';
import { unauthenticated } from '../domain/errors';
import type { UnitOfWork } from '../domain/execute';
import { membershipsOf } from '../domain/administrator/memberships';
import { findUserStanding } from '../domain/user/access';
import { findPersonalAccessToken } from '../domain/user/personal-access-tokens';
import { Principal } from './principal';
import { perServer, type Runtime } from '../deps';

/** The request an access token came with, for the DPoP check (RFC 9449 §7): scheme, proof, htm, htu. */
export interface TokenRequest {
  scheme: 'Bearer' | 'DPoP';
  /** the `DPoP` header */
  proof: string | undefined;
  method: string;
  /** the external URL of the request */
  url: string;
}

/**
 * Resolves a bearer token that is not a PAT (an access token issued by the OIDC layer, see
 * src/wiring.ts): returns undefined when the token is not one of its own, and throws unauthenticated
 * when it is one but its presentation is wrong (a DPoP-bound token without a valid proof of its key).
 */
export type BearerResolver = (
  src: Source,
  token: string,
  request: TokenRequest,
) => Promise<{ userId: string; clientId?: string; scopes?: string[] } | undefined>;

/** The resolvers a server asks, in order; start() installs them (src/main.ts). */
const resolversOf = perServer((): { list: readonly BearerResolver[] } => ({ list: [] }));

export function installBearerResolvers(runtime: Runtime, resolvers: readonly BearerResolver[]): void {
  runtime.get(resolversOf).list = [...resolvers];
}

/**
 * Turns `Authorization: Bearer <token>` (or `DPoP <token>` with a `DPoP` proof for a DPoP-bound
 * access token) into a principal: the user, their organization and their administrator memberships.
 * A missing, unknown, expired or revoked token, a user that is not active, or a DPoP-bound token
 * without a valid proof of its key, is UNAUTHENTICATED.
 */
export async function authenticateBearer(
  src: Source,
  authorization: string | null | undefined,
  request: Omit<TokenRequest, 'scheme'>,
): Promise<Principal> {
  const presented = parseAuthorization(authorization);
  if (!presented) throw unauthenticated('missing bearer token: send "Authorization: Bearer <token>"');
  const { token, scheme } = presented;
  let identity: { userId: string; clientId?: string; scopes?: string[]; kind: 'pat' | 'access_token' } | undefined;
  if (token.startsWith('pcp_')) {
    if (scheme !== 'Bearer') throw unauthenticated('a personal access token is sent with the Bearer scheme');
    const hash = sha256Hex(token);
    const pats = src.runtime.get(patCache);
    const row = await pats.get(hash, () => findPersonalAccessToken(src.db, hash));
    if (!row) pats.evict(hash);
    else if (!row.expiresAt || row.expiresAt.getTime() > Date.now()) identity = { userId: row.userId, kind: 'pat' };
  } else {
    for (const resolve of src.runtime.get(resolversOf).list) {
      const found = await resolve(src, token, { ...request, scheme });
      if (found) {
        identity = { ...found, kind: 'access_token' };
        break;
      }
    }
  }
  if (!identity) throw unauthenticated('the token is invalid or expired');
  const userId = identity.userId;
  const user = await src.runtime.get(principalCache).get(userId, async () => {
    const row = await findUserStanding(src.db, userId);
    return row && { ...row, memberships: await membershipsOf(src.db, userId) };
  });
  // Users of a deactivated organization cannot call the API until it is activated again.
  if (!user || !maySignIn(user, TOKEN_USE)) {
    throw unauthenticated('the token is invalid or expired');
  }
  // A PAT's principal is the same for every call until the cached user changes: built once (the permission
  // sets of its memberships are not free), an access token's carries that token's client and scopes.
  if (identity.kind === 'pat') {
    user.patPrincipal ??= new Principal(userId, user.orgId, user.memberships, { kind: 'pat' });
    return user.patPrincipal;
  }
  return new Principal(userId, user.orgId, user.memberships, {
    kind: identity.kind,
    clientId: identity.clientId,
    scopes: identity.scopes,
  });
}

// Every API call authenticates, so the rows behind a PAT and a principal are cached. Commands that
// change them call the invalidate functions below (evicted in every replica on commit); the short
// maximum age bounds staleness even if an eviction were missed.
const patCache = defineCache<{ userId: string; expiresAt: Date | null } | undefined>('pat', { maxAgeMs: 5_000 });
const principalCache = defineCache<
  | {
      orgId: string;
      state: string;
      orgState: string;
      memberships: Awaited<ReturnType<typeof membershipsOf>>;
      patPrincipal?: Principal;
    }
  | undefined
>('principal', { maxAgeMs: 5_000 });

/** Call from any command that changes a user's state, organization or administrator memberships. */
export function invalidatePrincipal(work: UnitOfWork, userId: string): Promise<void> {
  return invalidateAfterCommit(work, 'principal', userId);
}

/** Call from any command that removes or changes a personal access token (by its stored hash). */
export function invalidatePat(work: UnitOfWork, tokenHash: string): Promise<void> {
  return invalidateAfterCommit(work, 'pat', tokenHash);
}

export function parseBearer(authorization: string | null | undefined): string | undefined {
  const p = parseAuthorization(authorization);
  return p?.scheme === 'Bearer' ? p.token : undefined;
}

/** `Authorization: Bearer <token>` (RFC 6750) or `DPoP <token>` (RFC 9449 §7.1); schemes are case-insensitive. */
export function parseAuthorization(
  authorization: string | null | undefined,
): { scheme: 'Bearer' | 'DPoP'; token: string } | undefined {
  if (!authorization) return undefined;
  const m = /^(Bearer|DPoP)\s+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(authorization);
  if (!m) return undefined;
  return { scheme: m[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: m[2] };
}
