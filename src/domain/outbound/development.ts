import { isLoopbackHost } from '../idp/oauth/config';

/**
 * Development mode for outbound connections: the server's own issuer (PORTCULLIS_EXTERNAL_URL) is plain
 * http on a loopback host, so it is a developer's machine or a test, never a deployment. Only then may a
 * URL a caller chose be fetched over http (from a loopback host) and reach loopback addresses at all.
 * Read at each call, not at start-up: tests learn their port, and so their issuer, after starting.
 */
export function isDevelopmentIssuer(issuer: string): boolean {
  try {
    const u = new URL(issuer);
    return u.protocol === 'http:' && isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}
