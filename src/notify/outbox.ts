import type { Db } from '../db/client';
import { enqueueMessages } from '../domain/notification/enqueue';
import { type MessageInput, renderMessage } from './templates';

/**
 * Renders messages and writes them into the outbox, in the caller's transaction: a message exists exactly
 * when the code it carries does. The delivery job (src/domain/notification/outbox.ts) sends them later.
 */
export function enqueueNotifications(tx: Db, inputs: MessageInput[]): Promise<string[]> {
  return enqueueMessages(
    tx,
    inputs.map((input) => ({
      userId: input.userId,
      kind: input.kind,
      recipient: input.email,
      ...renderMessage(input),
    })),
  );
}
