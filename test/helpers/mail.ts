import { rows } from './rows';
import type { TestServer } from './server';

/** The verification codes mailed to `email`, oldest first: the outbox is the one place a test can read them. */
export async function mailedCodes(server: TestServer, email: string): Promise<string[]> {
  const mails = await rows(
    server,
    `select body from notifications where recipient = '${email}' and kind = 'EMAIL_VERIFICATION' order by created_at`,
  );
  return mails.map((r) => /with this code: ([A-Z0-9]+)/.exec(r.body)![1]);
}
