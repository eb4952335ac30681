import { isIPv6 } from 'node:net';
import type { Context } from 'hono';

/**
 * The address a request is counted under: the TCP peer of the connection. X-Forwarded-For is not
 * read, because Portcullis has no setting that names a trusted proxy and anyone can send the header.
 * IPv4-mapped IPv6 addresses count as their IPv4 address; other IPv6 addresses by their /64, the
 * smallest block one subscriber is given, so that one attacker cannot get a fresh count per address.
 */
export function sourceAddress(c: Context): string {
  return addressKey(peerAddress(c));
}

/** The TCP peer's address as it is (an IPv4-mapped IPv6 address as its IPv4 address): for showing, not counting. */
export function peerAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  const address = incoming?.socket?.remoteAddress ?? '';
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
}

export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address (zone id dropped), without leading zeros. */
function expandIPv6(address: string): string[] {
  const [head, tail = ''] = address.split('%')[0].toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const middle = address.includes('::') ? Array(8 - left.length - right.length).fill('0') : [];
  return [...left, ...middle, ...right].map((g) => g.replace(/^0+(?=.)/, ''));
}
