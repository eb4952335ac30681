import { and, eq, gt } from 'drizzle-orm';
import { verifySecret } from '../../../crypto/secrets';
import { decryptWithMasterKey } from '../../../crypto/keys/encryption';
import type { Db } from '../../../db/client';
import { idpIntents } from '../../../db/schema/index';
import type { Ctx } from '../../context';
import { notFound } from '../../errors';
import type { UnitOfWork } from '../../execute';
import { requireLoginUiPermission } from '../../session/login-ui-permission';
import type { ExternalUser, UpstreamTokens } from '../external-user';
import { findLinkedUserId } from '../links';
import type { IntentRow } from './model';

// One answer for an unknown id, a wrong token, an unfinished, used or expired intent: the caller
// learns nothing about intents it does not hold the token of.
const intentNotFound = () => notFound('Errors.IdP.Intent.NotFound', 'identity provider intent not found or not usable');

async function succeededIntent(db: Db, intentId: string, token: string, lock?: 'update'): Promise<IntentRow> {
  const q = db
    .select()
    .from(idpIntents)
    .where(and(eq(idpIntents.id, intentId), eq(idpIntents.state, 'SUCCEEDED'), gt(idpIntents.expiresAt, new Date())));
  const [row] = intentId ? await (lock ? q.for(lock) : q) : [];
  if (!row || !token || !verifySecret(row.tokenHash, token)) throw intentNotFound();
  return row;
}

export interface RetrievedIntent {
  idpId: string;
  externalUser: ExternalUser;
  /** the linked user now (a link may have been added since the callback) */
  userId?: string;
  tokens?: UpstreamTokens;
}

/** RetrieveIdentityProviderIntent: what the upstream said, for the holder of the intent's token. */
export async function retrieveIntent(
  ctx: Ctx,
  masterKey: Buffer,
  input: { intentId: string; token: string },
): Promise<RetrievedIntent> {
  requireLoginUiPermission(ctx);
  return readIntent(ctx.db, masterKey, await succeededIntent(ctx.db, input.intentId, input.token));
}

async function readIntent(db: Db, masterKey: Buffer, row: IntentRow): Promise<RetrievedIntent> {
  const externalUser = row.externalUser as unknown as ExternalUser;
  const userId = (await findLinkedUserId(db, row.idpId, externalUser.id)) ?? undefined;
  const tokens = row.upstreamTokens
    ? (JSON.parse(decryptWithMasterKey(masterKey, row.upstreamTokens)) as UpstreamTokens)
    : undefined;
  return { idpId: row.idpId, externalUser, userId, tokens };
}

/** Uses an intent up inside the caller's command: it signs in once. Returns it with its linked user. */
export async function consumeIntent(
  work: UnitOfWork,
  input: { intentId: string; token: string },
): Promise<{ intent: IntentRow; userId?: string }> {
  const intent = await succeededIntent(work.tx, input.intentId, input.token, 'update');
  const userId = intent.externalUserId
    ? await findLinkedUserId(work.tx, intent.idpId, intent.externalUserId)
    : undefined;
  if (!(await markConsumed(work, intent, userId ?? '', work.ctx.instanceId))) throw intentNotFound();
  return { intent, userId };
}

/**
 * The one transition SUCCEEDED → CONSUMED with its event, in the caller's unit of work; false when the
 * intent was not (or no longer) SUCCEEDED, so two uses racing each other cannot both win.
 */
export async function markConsumed(
  work: UnitOfWork,
  intent: { id: string; idpId: string },
  userId: string,
  resourceOwner: string,
): Promise<boolean> {
  const [used] = await work.tx
    .update(idpIntents)
    .set({ state: 'CONSUMED' })
    .where(and(eq(idpIntents.id, intent.id), eq(idpIntents.state, 'SUCCEEDED')))
    .returning({ id: idpIntents.id });
  if (!used) return false;
  work.push({
    aggregateType: 'idp_intent',
    aggregateId: intent.id,
    type: 'idp_intent.consumed',
    payload: { idpId: intent.idpId, userId },
    resourceOwner,
  });
  return true;
}
