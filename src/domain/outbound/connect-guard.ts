import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { addressProblem } from './address';
import { OutboundRefused } from './refused';

/** Whom a connection is for and under which rule; every caller of the outbound module passes one. */
export interface OutboundRule {
  /** what is reached, in words for error messages and logs ("the SAML metadata", "the LDAP server") */
  purpose: string;
  /** the server runs in development mode (isDevelopmentIssuer): loopback addresses may be reached */
  development: boolean;
}

/**
 * Refuses a host that is an IP literal the rule forbids. Node connects to a literal without calling
 * `lookup`, so literals are checked here, before any connection.
 */
export function refuseLiteral(host: string, rule: OutboundRule): void {
  const literal = host.replace(/^\[|\]$/g, '');
  if (!isIP(literal)) return;
  const why = addressProblem(literal, rule.development);
  if (why) throw new OutboundRefused(rule.purpose, `is at an address that ${why}`);
}

/**
 * dns.lookup for a socket's own connect, refusing when any address of the host is one the rule
 * forbids. It runs inside the connection, so DNS cannot answer one address to a check and another to
 * the connect (rebinding); the error it hands the socket is the OutboundRefused itself.
 */
export function guardedLookup(rule: OutboundRule): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      for (const a of addresses) {
        const why = addressProblem(a.address, rule.development);
        if (why)
          return callback(
            new OutboundRefused(rule.purpose, `is on a host that resolves to an address that ${why}`),
            '',
            0,
          );
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
