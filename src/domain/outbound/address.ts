import { BlockList, isIP } from 'node:net';

/**
 * Addresses a URL or host chosen by a caller (a client_id, an identity provider's endpoints, a logout
 * URI, a directory host) must never reach: without this the server would connect into its own network
 * for them (SSRF) — cloud metadata services (169.254.169.254), databases on private ranges, admin ports
 * on loopback.
 */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 96], // unspecified, and IPv4-compatible addresses (deprecated)
  ['::ffff:0:0:0', 96], // IPv4-translated
  ['64:ff9b::', 96], // NAT64: an IPv4 address in disguise
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Why the server may not connect to this IP address, or undefined. IPv4-mapped IPv6 addresses are
 * judged as the IPv4 address they carry. Loopback is allowed only in development (see
 * isDevelopmentIssuer), where the upstreams are served by the developer's machine or a test.
 */
export function addressProblem(address: string, allowLoopback: boolean): string | undefined {
  const ip = unmapped(address.replace(/^\[|\]$/g, ''));
  const family = isIP(ip);
  if (family === 0) return 'is not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(ip, type)) return allowLoopback ? undefined : 'is a loopback address';
  if (PRIVATE.check(ip, type)) return 'is a private, link-local or reserved address';
  return undefined;
}

/**
 * An IPv4-mapped IPv6 address (::ffff:127.0.0.1, which URLs write as [::ffff:7f00:1]) as the IPv4
 * address it reaches; any other address as it is.
 */
function unmapped(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const canonical = new URL(`http://[${ip}]`).hostname.slice(1, -1);
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(canonical);
  if (dotted) return dotted[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(canonical);
  if (!hex) return ip;
  const [hi, lo] = [Number.parseInt(hex[1]!, 16), Number.parseInt(hex[2]!, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}
