import type { Transporter } from 'nodemailer';
import { type Deps, perServer } from '../deps';
import type { Notification } from '../domain/notification/outbox';
import type { Send } from '../domain/outbox/outbox';
import { smsProviderFor } from './sms/index';

export type Sender = Send<Notification>;

/** The server's sender, made with its first message (its SMTP transport is then reused). */
const sender = perServer((): { send?: Sender } => ({}));

/** How the notification outbox (src/domain/notification/outbox.ts) delivers a message: one sender per server. */
export function notificationSender(deps: Deps): Sender {
  const held = deps.runtime.get(sender);
  held.send ??= senderFor(deps);
  return held.send;
}

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
