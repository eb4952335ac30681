import type { Db } from '../../db/client';
import { notifications } from '../../db/schema/index';
import type { OtpNotificationKind } from '../../notify/otp';
import type { NotificationKind } from '../../notify/templates';
import { newId } from '../ids';

/** A message as the outbox keeps it: rendered, so that the row holds exactly what is delivered. */
export interface OutgoingMessage {
  userId: string;
  kind: NotificationKind | OtpNotificationKind;
  /** an email address, or a phone number for OTP_SMS */
  recipient: string;
  subject: string;
  body: string;
}

/**
 * Writes messages into the notification outbox, in the caller's transaction: a message exists exactly
 * when the code it carries does. The outbox's job (outbox.ts) sends them later. Returns their ids.
 */
export async function enqueueMessages(tx: Db, messages: OutgoingMessage[]): Promise<string[]> {
  if (!messages.length) return [];
  const rows = messages.map((m) => ({ id: newId(), ...m }));
  await tx.insert(notifications).values(rows);
  return rows.map((r) => r.id);
}
