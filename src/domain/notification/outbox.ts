import { notifications } from '../../db/schema/index';
import { notificationSender } from '../../notify/delivery';
import { defineOutbox } from '../outbox/outbox';

/** A row of the notification outbox. */
export type Notification = typeof notifications.$inferSelect;

/**
 * The notification outbox: a message is claimed for 5 minutes while one replica sends it, retried
 * after 20 s, 40 s, 80 s, 160 s, and FAILED after the 5th attempt; finished messages are removed after a day.
 * How a message travels (SMTP, the SMS provider, the log) is src/notify/delivery.ts.
 */
export const notificationOutbox = defineOutbox({
  name: 'notification-delivery',
  table: notifications,
  pollMs: 1000,
  batch: 20,
  leaseSeconds: 300,
  maxAttempts: 5,
  retryDelay: (attempts) => 10 * 2 ** attempts,
  // A message's body holds its one-time code in plain text: sent and failed messages go after a day,
  // long past every code's expiry and the 15 minutes the mail throttle counts (domain/user/code-delivery.ts).
  keepFinishedSeconds: 86_400,
  sender: notificationSender,
});

/** Sends the outbox: pending notifications, a batch at a time. */
export const notificationDeliveryJob = notificationOutbox.job;
