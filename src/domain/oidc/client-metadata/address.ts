import { BlockList, isIP } from 'node:net';

/**
 * Addresses a client metadata URL must never reach: a client_id is chosen by whoever sends the
 * request, so without this the server would fetch from its own network for them (SSRF) — cloud
 * metadata services (169.254.169.254), databases on private ranges, admin ports on loopback.
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
  ['::', 128],
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
 * Why the server may not connect to this IP address, or undefined. Loopback is allowed only in
 * development (see isDevelopmentIssuer), where the documents are served by the developer's machine.
 */
export function addressProblem(address: string, allowLoopback: boolean): string | undefined {
  let ip = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) ip = mapped[1]!;
  const family = isIP(ip);
  if (family === 0) return 'is not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(ip, type)) return allowLoopback ? undefined : 'is a loopback address';
  if (PRIVATE.check(ip, type)) return 'is a private, link-local or reserved address';
  return undefined;
}
