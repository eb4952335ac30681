import type { Logger } from 'pino';
import type { SmsProvider } from './provider';

/** Without an SMS gateway the log is the delivery channel, as for mail without SMTP. */
export function logSmsProvider(log: Logger): SmsProvider {
  return {
    name: 'log',
    async send({ to, text, notificationId }) {
      log.info({ notificationId, recipient: to, body: text }, 'SMS (no SMS provider configured)');
    },
  };
}
