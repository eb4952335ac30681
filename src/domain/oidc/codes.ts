import { createHash } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { constantTimeEqual, randomToken, sha256Hex } from '../../crypto/random';
import { authCodes } from '../../db/schema/index';
import type { Ctx } from '../context';
import type { UnitOfWork } from '../execute';
import { revokeGrant } from './grants';
import { invalidGrant } from './oauth-errors';

/** Codes live 60 seconds. */
const CODE_LIFETIME_MS = 60_000;

export async function createCode(
  work: UnitOfWork,
  c: {
    grantId: string;
    clientId: string;
    redirectUri: string;
    codeChallenge: string | null;
    nonce: string | null;
    dpopJkt?: string | null;
  },
): Promise<string> {
  const code = randomToken(32);
  await work.tx.insert(authCodes).values({
    codeHash: sha256Hex(code),
    grantId: c.grantId,
    clientId: c.clientId,
    redirectUri: c.redirectUri,
    codeChallenge: c.codeChallenge,
    nonce: c.nonce,
    dpopJkt: c.dpopJkt ?? null,
    expiresAt: new Date(Date.now() + CODE_LIFETIME_MS),
  });
  return code;
}

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export interface CodeRedemption {
  code: string;
  clientId: string;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
  /** the key of the token request's DPoP proof, if any */
  dpopJkt?: string;
}

/**
 * Redeems a code: single use (the first redemption marks it used, whatever comes next), bound to the
 * client, the redirect URI and the PKCE challenge. A second use revokes everything issued from the
 * code's grant. A verifier for a code without challenge is a PKCE downgrade and fails too. A code
 * asked for with `dpop_jkt` (RFC 9449 §10) needs a proof of that key.
 */
export async function redeemAuthorizationCode(
  ctx: Ctx,
  r: CodeRedemption,
): Promise<{ grantId: string; nonce: string | null }> {
  const hash = sha256Hex(r.code);
  const [row] = await ctx.db
    .update(authCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(authCodes.codeHash, hash), isNull(authCodes.usedAt)))
    .returning();
  if (!row) {
    const [used] = await ctx.db.select().from(authCodes).where(eq(authCodes.codeHash, hash));
    if (used && used.clientId === r.clientId) await revokeGrant(ctx, used.grantId, 'authorization code used twice');
    throw invalidGrant('the code is invalid, expired or already used');
  }
  if (row.clientId !== r.clientId) throw invalidGrant('the code was issued to another client');
  if (row.expiresAt.getTime() < Date.now()) throw invalidGrant('the code is expired');
  if (!r.redirectUri || r.redirectUri !== row.redirectUri)
    throw invalidGrant('redirect_uri differs from the authorization request');
  if (row.codeChallenge) {
    if (!r.codeVerifier) throw invalidGrant('code_verifier is required for this code');
    if (
      !/^[A-Za-z0-9\-._~]{43,128}$/.test(r.codeVerifier) ||
      !constantTimeEqual(s256(r.codeVerifier), row.codeChallenge)
    ) {
      throw invalidGrant('code_verifier does not match the code_challenge');
    }
  } else if (r.codeVerifier) {
    throw invalidGrant('code_verifier sent for a code that was issued without code_challenge');
  }
  if (row.dpopJkt && row.dpopJkt !== r.dpopJkt)
    throw invalidGrant('the code is bound to dpop_jkt: send a DPoP proof with that key');
  return { grantId: row.grantId, nonce: row.nonce };
}
