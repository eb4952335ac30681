import { and, eq, isNull } from 'drizzle-orm';
import { sha256Hex } from '../../crypto/random';
import { accessTokens, refreshTokens } from '../../db/schema/index';
import { revokeGrant, revokeLive } from './grants';
import type { Ctx } from '../context';
import { execute } from '../execute';
import type { OidcEnv } from './env';
import { OPAQUE_ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX } from './issue';
import { revokeMachineToken } from './m2m/tokens';
import { verifyOwnJwt } from './web-keys';

/**
 * Token revocation (RFC 7009, spec §3.1): a refresh token revokes its whole grant — every refresh
 * and access token issued from it, also one a concurrent refresh commits afterwards (RFC 7009 §2.1;
 * token-lookup.ts checks the grant); an access token only itself. Unknown tokens and tokens of other
 * clients are ignored — the endpoint answers the same either way.
 */
export async function revokeToken(
  ctx: Ctx,
  env: OidcEnv,
  token: string,
  clientId: string,
  hint?: string,
): Promise<void> {
  if (await revokeMachineToken(ctx, env, token, clientId)) return;
  const asRefresh = token.startsWith(REFRESH_TOKEN_PREFIX) || hint === 'refresh_token';
  if (asRefresh) {
    const [rt] = await ctx.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256Hex(token)));
    if (rt && rt.clientId === clientId) {
      await execute(ctx, async (work) => {
        const now = new Date();
        await work.tx.update(refreshTokens).set({ revokedAt: now }).where(eq(refreshTokens.id, rt.id));
        await revokeLive(work, accessTokens, eq(accessTokens.refreshTokenId, rt.id), now);
        await work.load('refresh_token', rt.id);
        work.push({
          aggregateType: 'refresh_token',
          aggregateId: rt.id,
          type: 'oidc_session.refresh_token.revoked',
          resourceOwner: ctx.instanceId,
        });
      });
      if (rt.grantId) await revokeGrant(ctx, rt.grantId, 'refresh token revoked');
      return;
    }
    if (rt) return;
  }
  let id: string | undefined;
  if (token.startsWith(OPAQUE_ACCESS_TOKEN_PREFIX)) {
    const [row] = await ctx.db
      .select({ id: accessTokens.id, clientId: accessTokens.clientId })
      .from(accessTokens)
      .where(eq(accessTokens.tokenHash, sha256Hex(token)));
    if (row?.clientId === clientId) id = row.id;
  } else if (token.split('.').length === 3) {
    try {
      const { payload } = await verifyOwnJwt(ctx, env.masterKey, token, {
        issuer: env.issuer,
        ignoreExpiration: true,
      });
      if (payload.client_id === clientId && typeof payload.jti === 'string') id = payload.jti;
    } catch {
      return;
    }
  }
  if (!id) return;
  const tokenId = id;
  await execute(ctx, async (work) => {
    const [row] = await work.tx
      .update(accessTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(accessTokens.id, tokenId), isNull(accessTokens.revokedAt)))
      .returning({ id: accessTokens.id });
    if (!row) return;
    await work.load('access_token', tokenId);
    work.push({
      aggregateType: 'access_token',
      aggregateId: tokenId,
      type: 'oidc_session.access_token.revoked',
      payload: { by: 'client' },
      resourceOwner: ctx.instanceId,
    });
  });
}
