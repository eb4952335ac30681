import { eq } from 'drizzle-orm';
import { hashSecret } from '../../../crypto/secrets';
import { randomToken } from '../../../crypto/random';
import { encryptWithMasterKey } from '../../../crypto/keys/encryption';
import { idpIntents } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { execute } from '../../execute';
import type { ExternalUser, UpstreamTokens } from '../external-user';
import { findLinkedUserId } from '../links';
import type { SignInProvider } from './provider-for-sign-in';
import type { IntentRow } from './model';

export interface FinishedIntent {
  intentId: string;
  /** the secret that retrieves and uses the intent, handed to the success URL (never stored) */
  token: string;
  /** the linked Portcullis user, if the upstream account is linked */
  userId?: string;
}

/**
 * Records what the upstream said: the intent becomes SUCCEEDED with a fresh token (stored as a keyed
 * hash) and, when the provider keeps tokens, the upstream's tokens encrypted under the master key.
 */
export async function succeedIntent(
  ctx: Ctx,
  masterKey: Buffer,
  intent: IntentRow,
  provider: SignInProvider,
  user: ExternalUser,
  tokens?: UpstreamTokens,
): Promise<FinishedIntent> {
  const token = randomToken(32);
  const userId = await findLinkedUserId(ctx.db, provider.row.id, user.id);
  const kept = provider.options.storeTokens && tokens ? encryptWithMasterKey(masterKey, JSON.stringify(tokens)) : null;
  await execute(ctx, async (work) => {
    await work.tx
      .update(idpIntents)
      .set({
        state: 'SUCCEEDED',
        externalUser: user as unknown as Record<string, unknown>,
        externalUserId: user.id,
        userId: userId ?? null,
        tokenHash: hashSecret(token),
        upstreamTokens: kept,
        // what the upstream needed is spent: nothing here can start another exchange
        codeVerifier: null,
        nonce: null,
      })
      .where(eq(idpIntents.id, intent.id));
    work.push({
      aggregateType: 'idp_intent',
      aggregateId: intent.id,
      type: 'idp_intent.succeeded',
      payload: { idpId: provider.row.id, externalUserId: user.id, ...(userId ? { userId } : {}) },
      resourceOwner: provider.row.orgId ?? ctx.instanceId,
    });
  });
  return { intentId: intent.id, token, userId };
}

/** The upstream refused or the answer failed a check: the intent is FAILED with the reason. */
export async function failIntent(ctx: Ctx, intent: IntentRow, reason: string): Promise<void> {
  await execute(ctx, async (work) => {
    await work.tx
      .update(idpIntents)
      .set({ state: 'FAILED', failureReason: reason.slice(0, 500), codeVerifier: null, nonce: null })
      .where(eq(idpIntents.id, intent.id));
    work.push({
      aggregateType: 'idp_intent',
      aggregateId: intent.id,
      type: 'idp_intent.failed',
      payload: { idpId: intent.idpId, reason: reason.slice(0, 500) },
      resourceOwner: ctx.instanceId,
    });
  });
}
