import { notifications } from '../db/schema/index';
import type { Db } from '../db/client';
import { newId } from '../domain/ids';
import { type MessageInput, renderMessage } from './templates';

/**
 * Writes rendered messages into the outbox, in the caller's transaction: a message exists exactly
 * when the code it carries does. The delivery job (delivery.ts) sends them later.
 */
export async function enqueueNotifications(tx: Db, inputs: MessageInput[]): Promise<string[]> {
  if (!inputs.length) return [];
  const rows = inputs.map((input) => ({
    id: newId(),
    userId: input.userId,
    kind: input.kind,
    recipient: input.email,
    ...renderMessage(input),
  }));
  await tx.insert(notifications).values(rows);
  return rows.map((r) => r.id);
}
