import type { Db } from '../db/client';
import { enqueueMessages } from '../domain/notification/enqueue';

/** Outbox kinds of one-time sign-in codes; the delivery job sends OTP_SMS through the SMS provider. */
export type OtpNotificationKind = 'OTP_EMAIL' | 'OTP_SMS';

/**
 * Writes a one-time sign-in code into the outbox, in the caller's transaction (the code exists exactly
 * when its message does). Email: subject and body; SMS: the body is the text.
 */
export async function enqueueOtpMessage(
  tx: Db,
  m: { kind: OtpNotificationKind; userId: string; recipient: string; code: string; expiresAt: Date; issuer: string },
): Promise<void> {
  const until = m.expiresAt.toISOString().replace('T', ' ').slice(0, 16);
  const body =
    m.kind === 'OTP_SMS'
      ? `${m.code} is your ${m.issuer} sign-in code. It expires at ${until} UTC.`
      : [
          'Hello,',
          '',
          `your ${m.issuer} sign-in code is: ${m.code}`,
          '',
          `It expires at ${until} UTC. If you did not try to sign in, change your password.`,
          '',
        ].join('\n');
  await enqueueMessages(tx, [
    {
      userId: m.userId,
      kind: m.kind,
      recipient: m.recipient,
      subject: m.kind === 'OTP_SMS' ? 'SMS' : `Your ${m.issuer} sign-in code`,
      body,
    },
  ]);
}
