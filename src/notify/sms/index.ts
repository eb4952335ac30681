import type { Deps } from '../../deps';
import { httpSmsProvider } from './http';
import { logSmsProvider } from './log';
import type { SmsProvider } from './provider';

export type { SmsProvider } from './provider';

/** The HTTP gateway when PORTCULLIS_SMS_HTTP_URL is set; otherwise messages go to the log. */
export function smsProviderFor(deps: Deps): SmsProvider {
  const { smsHttpUrl, smsHttpToken } = deps.config;
  return smsHttpUrl ? httpSmsProvider(smsHttpUrl, smsHttpToken) : logSmsProvider(deps.log);
}
