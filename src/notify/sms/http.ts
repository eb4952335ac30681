import type { SmsProvider } from './provider';

/** How long one POST to the gateway may take before the attempt counts as failed (and is retried). */
const TIMEOUT_MS = 10_000;

/**
 * A generic SMS gateway webhook: each message is one `POST <url>` with the JSON body
 * `{"to": "+41…", "text": "…", "id": "<notification id>"}` and, when a token is set,
 * `Authorization: Bearer <token>`. Any 2xx answer means accepted; anything else is retried by the outbox.
 * The id lets the gateway drop a message delivered twice (the outbox delivers at least once).
 */
export function httpSmsProvider(url: string, token?: string): SmsProvider {
  return {
    name: 'http',
    async send({ to, text, notificationId }) {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({ to, text, id: notificationId }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`SMS gateway answered ${res.status}`);
    },
  };
}
