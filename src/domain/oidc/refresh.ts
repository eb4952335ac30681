import { maySignIn, TOKEN_USE } from '../session/may-sign-in';
import { and, eq, isNull } from 'drizzle-orm';
import { sha256Hex } from '../../crypto/random';
import type { Db } from '../../db/client';
import { oidcGrants, orgs, refreshTokens, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { type Grant, revokeGrant } from './grants';
import { invalidGrant, invalidScope } from './oauth-errors';
import { narrowAudience, type Resource } from './resources';

/**
 * Redeems a refresh token for rotation: bound to its client; expired, revoked or unknown tokens fail;
 * the requested scope must be a subset of the token's, the requested resources (RFC 8707) of the
 * grant's audience; a DPoP-bound one needs a proof of its key. A token that was already rotated is a reuse:
 * the whole grant is revoked. The token is marked used atomically, so two concurrent uses cannot both win.
 */
export async function consumeRefreshToken(
  ctx: Ctx,
  r: {
    token: string;
    clientId: string;
    requestedScopes: string[] | undefined;
    resources?: Resource[];
    /** the key of this request's DPoP proof, if one was sent */
    dpopJkt?: string;
  },
): Promise<{
  grant: Grant;
  refreshTokenId: string;
  tokenScopes: string[];
  scopes: string[];
  /** the narrowed audience when `resource` was sent (RFC 8707) */
  audience?: string[];
}> {
  const [row] = await ctx.db
    .select({ rt: refreshTokens, grant: oidcGrants })
    .from(refreshTokens)
    .innerJoin(oidcGrants, eq(oidcGrants.id, refreshTokens.grantId))
    .where(eq(refreshTokens.tokenHash, sha256Hex(r.token)));
  if (!row) throw invalidGrant('the refresh token is invalid');
  const { rt, grant } = row;
  if (rt.clientId !== r.clientId) throw invalidGrant('the refresh token was issued to another client');
  if (rt.revokedAt || grant.revokedAt) throw invalidGrant('the refresh token is revoked');
  // RFC 9449 §5: a bound refresh token is only good with a proof of its key. Checked before the token
  // is marked used, so whoever stole it cannot even burn it (and revoke the grant) without the key.
  if (rt.jkt && rt.jkt !== r.dpopJkt)
    throw invalidGrant(
      r.dpopJkt
        ? 'the refresh token is bound to another DPoP key'
        : 'the refresh token is DPoP-bound: send a DPoP proof with its key',
    );
  if (rt.usedAt) {
    await revokeGrant(ctx, grant.id, 'refresh token reused');
    throw invalidGrant('the refresh token was already used; the grant is revoked');
  }
  const now = Date.now();
  if (rt.expiresAt.getTime() <= now || (grant.absoluteExpiresAt && grant.absoluteExpiresAt.getTime() <= now)) {
    throw invalidGrant('the refresh token is expired');
  }
  let scopes = rt.scopes;
  if (r.requestedScopes) {
    const extra = r.requestedScopes.filter((s) => !rt.scopes.includes(s));
    if (extra.length) throw invalidScope(`scope exceeds the original grant: ${extra.join(' ')}`);
    scopes = rt.scopes.filter((s) => r.requestedScopes!.includes(s));
  }
  // before the token is marked used: asking for a resource outside the grant must not burn it
  const audience = r.resources && narrowAudience(grant.audience, r.resources);
  const [won] = await ctx.db
    .update(refreshTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(refreshTokens.id, rt.id), isNull(refreshTokens.usedAt)))
    .returning({ id: refreshTokens.id });
  if (!won) {
    await revokeGrant(ctx, grant.id, 'refresh token reused');
    throw invalidGrant('the refresh token was already used; the grant is revoked');
  }
  return { grant, refreshTokenId: rt.id, tokenScopes: rt.scopes, scopes, audience };
}

/**
 * A refresh token as introspection shows it to the client it was issued to (RFC 7662): active while
 * it is neither used (rotated), revoked, expired nor part of a revoked or expired grant, and its
 * user and organization are active.
 */
export async function findActiveRefreshToken(db: Db, token: string) {
  const [row] = await db
    .select({ rt: refreshTokens, grant: oidcGrants, userState: users.state, orgState: orgs.state })
    .from(refreshTokens)
    .innerJoin(oidcGrants, eq(oidcGrants.id, refreshTokens.grantId))
    .innerJoin(users, eq(users.id, refreshTokens.userId))
    .innerJoin(orgs, eq(orgs.id, users.orgId))
    .where(eq(refreshTokens.tokenHash, sha256Hex(token)));
  if (!row) return undefined;
  const { rt, grant } = row;
  const now = Date.now();
  if (rt.usedAt || rt.revokedAt || grant.revokedAt || rt.expiresAt.getTime() <= now) return undefined;
  if (grant.absoluteExpiresAt && grant.absoluteExpiresAt.getTime() <= now) return undefined;
  if (!maySignIn({ state: row.userState, orgState: row.orgState }, TOKEN_USE)) return undefined;
  return rt;
}
