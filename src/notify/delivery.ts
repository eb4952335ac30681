import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Transporter } from 'nodemailer';
import type { Db } from '../db/client';
import { notifications } from '../db/schema/index';
import type { Deps } from '../deps';
import type { Job } from '../jobs';
import { smsProviderFor } from './sms/index';

/** How long a claimed message is hidden from other replicas while one of them delivers it. */
const LEASE_SECONDS = 300;
const BATCH = 20;
const MAX_ATTEMPTS = 5;

type Claimed = typeof notifications.$inferSelect;
export type Sender = (m: Claimed) => Promise<void>;

/**
 * Claims due PENDING messages with `FOR UPDATE SKIP LOCKED` and pushes their next attempt past a
 * lease in the same statement, so concurrent replicas claim disjoint rows and a message is sent
 * once; a replica that dies mid-delivery leaves its rows to be retried after the lease.
 */
export async function claimPending(db: Db, limit = BATCH): Promise<Claimed[]> {
  const due = db
    .select({ id: notifications.id })
    .from(notifications)
    .where(and(eq(notifications.status, 'PENDING'), lte(notifications.nextAttemptAt, sql`now()`)))
    .orderBy(notifications.nextAttemptAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(notifications)
    .set({
      attempts: sql`${notifications.attempts} + 1`,
      nextAttemptAt: sql`now() + make_interval(secs => ${LEASE_SECONDS})`,
    })
    .where(inArray(notifications.id, due))
    .returning();
}

/** Delivers one batch of due messages; returns how many were sent. */
export async function deliverPending(db: Db, send: Sender): Promise<number> {
  const batch = await claimPending(db);
  const sent: string[] = [];
  for (const m of batch) {
    try {
      await send(m);
      sent.push(m.id);
    } catch (err) {
      const failed = m.attempts >= MAX_ATTEMPTS;
      // Back off exponentially: 20 s, 40 s, 80 s, … between attempts.
      const retryIn = 10 * 2 ** m.attempts;
      await db
        .update(notifications)
        .set({
          status: failed ? 'FAILED' : 'PENDING',
          lastError: String((err as Error)?.message ?? err).slice(0, 500),
          nextAttemptAt: sql`now() + make_interval(secs => ${retryIn})`,
        })
        .where(eq(notifications.id, m.id));
    }
  }
  // A crash between sending and this update leaves the rows to be retried after their lease, so a
  // message is sent at least once and, short of a crash, exactly once.
  if (sent.length)
    await db
      .update(notifications)
      .set({ status: 'SENT', sentAt: new Date(), lastError: null })
      .where(inArray(notifications.id, sent));
  return sent.length;
}

/** SMTP through nodemailer when PORTCULLIS_SMTP_URL is set; otherwise the message goes to the log. */
export function senderFor(deps: Deps): Sender {
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

const senders = new WeakMap<Deps, Sender>();

/** Sends the outbox: pending notifications, a batch at a time. */
export const notificationDeliveryJob: Job = {
  name: 'notification-delivery',
  intervalMs: 1000,
  async run(deps) {
    let send = senders.get(deps);
    if (!send) {
      send = senderFor(deps);
      senders.set(deps, send);
    }
    while ((await deliverPending(deps.database.db, send)) === BATCH) {
      // keep going while full batches come back
    }
  },
};
