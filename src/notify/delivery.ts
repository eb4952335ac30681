import type { Transporter } from 'nodemailer';
import { notifications } from '../db/schema/index';
import type { Deps } from '../deps';
import { defineOutbox, type Send } from '../domain/outbox/outbox';
import { smsProviderFor } from './sms/index';

export type Sender = Send<typeof notifications.$inferSelect>;

const senders = new WeakMap<Deps, Sender>();

/**
 * The notification outbox: a message is claimed for 5 minutes while one replica sends it, retried
 * after 20 s, 40 s, 80 s, 160 s, and FAILED after the 5th attempt; finished messages are removed after a day.
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
  sender(deps) {
    let send = senders.get(deps);
    if (!send) {
      send = senderFor(deps);
      senders.set(deps, send);
    }
    return send;
  },
});

/** Sends the outbox: pending notifications, a batch at a time. */
export const notificationDeliveryJob = notificationOutbox.job;

/** SMTP through nodemailer when PORTCULLIS_SMTP_URL is set; otherwise the message goes to the log. */
function senderFor(deps: Deps): Sender {
  const mail = mailSenderFor(deps);
  const sms = smsProviderFor(deps);
  // One-time codes by SMS travel through the outbox too, to the SMS provider (src/notify/sms/).
  return (m) => (m.kind === 'OTP_SMS' ? sms.send({ to: m.recipient, text: m.body, notificationId: m.id }) : mail(m));
}

function mailSenderFor(deps: Deps): Sender {
  const { smtpUrl, smtpFrom } = deps.config;
  if (smtpUrl) {
    // nodemailer (some megabytes in every process that runs this job) loads with the first message.
    let transport: Promise<Transporter> | undefined;
    return async (m) => {
      transport ??= import('nodemailer').then((mailer) => mailer.default.createTransport(smtpUrl));
      await (await transport).sendMail({ from: smtpFrom, to: m.recipient, subject: m.subject, text: m.body });
    };
  }
  return async (m) => {
    // Without SMTP the log is the delivery channel, so the rendered message is logged in full.
    deps.log.info(
      { notificationId: m.id, kind: m.kind, recipient: m.recipient, subject: m.subject, body: m.body },
      'notification (no SMTP configured)',
    );
  };
}
