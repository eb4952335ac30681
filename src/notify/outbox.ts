import { notifications } from '../db/schema/index';
import type { Db } from '../db/client';
import { newId } from '../domain/ids';
import { type MessageInput, renderMessage } from './templates';
// The delivery job registers itself with the process's background jobs when the outbox is in use.
import './delivery';

/**
 * Writes a rendered message into the outbox, in the caller's transaction: the message exists exactly
 * when the code it carries does. The delivery job (delivery.ts) sends it later.
 */
export async function enqueueNotification(tx: Db, input: MessageInput): Promise<string> {
  const { subject, body } = renderMessage(input);
  const id = newId();
  await tx.insert(notifications).values({ id, userId: input.userId, kind: input.kind, recipient: input.email, subject, body });
  return id;
}
