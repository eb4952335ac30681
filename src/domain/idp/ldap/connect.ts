import net, { isIP, type LookupFunction } from 'node:net';
import tls from 'node:tls';
import { Client, ResultCodeError } from 'ldapts';
import { guardedLookup, refuseLiteral } from '../../outbound/connect-guard';
import type { LdapProviderConfig } from './config';

/**
 * A client for one server of the provider, already upgraded with StartTLS when the provider asks
 * for it. Connecting, the TLS handshake and every operation are bounded by the provider's timeout,
 * so a server that accepts the connection and then says nothing cannot hold a sign-in.
 * Failures to reach the server are thrown as they are (see `isUnreachable`).
 * The directory's host is a caller's choice like any outbound URL: the outbound rule applies to the
 * address the socket connects to (checked in its own lookup, so DNS cannot swap in another), and a
 * refusal is an OutboundRefused thrown before anything is sent.
 */
export async function connect(config: LdapProviderConfig, server: string, development: boolean): Promise<Client> {
  const ms = config.timeoutSeconds * 1000;
  const { hostname } = new URL(server);
  const host = hostname.replace(/^\[|\]$/g, '');
  const rule = { purpose: `the LDAP server ${server}`, development };
  refuseLiteral(host, rule);
  const lookup = guardedLookup(rule);
  const tlsOptions: tls.ConnectionOptions = {
    ...(config.rootCaPem ? { ca: config.rootCaPem } : {}),
    host,
    // SNI takes host names only; an IP address is still checked against the certificate's SAN.
    ...(isIP(host) ? {} : { servername: host }),
    minVersion: 'TLSv1.2',
  };
  const client = new Client({
    url: server,
    timeout: ms,
    connectTimeout: ms,
    // ldapts speaks TLS from the first byte whenever tlsOptions are given, so only ldaps:// gets them.
    ...(server.startsWith('ldaps://') ? { tlsOptions } : {}),
    createConnection: ((port: number, to: string) => net.connect({ port, host: to, lookup })) as typeof net.connect,
    createSecureConnection: handshakeWithin(ms, lookup),
  });
  if (config.startTls && server.startsWith('ldap://')) {
    try {
      await client.startTLS(tlsOptions);
    } catch (err) {
      await close(client);
      // A server that does not offer StartTLS is as unusable as one that is down: never bind in clear.
      throw new Error(`StartTLS failed: ${(err as Error).message}`, { cause: err });
    }
  }
  return client;
}

/**
 * ldapts bounds connecting but not the TLS handshake of StartTLS; this bounds both handshakes. An
 * ldaps:// connection (port, host, options) resolves its host through the guarded lookup; StartTLS
 * (options with the open socket) upgrades a socket that already passed it.
 */
function handshakeWithin(ms: number, lookup: LookupFunction): typeof tls.connect {
  const connectTls = tls.connect as (...args: unknown[]) => tls.TLSSocket;
  return ((...args: unknown[]) => {
    const socket =
      typeof args[0] === 'number'
        ? connectTls({ ...(args[2] as tls.ConnectionOptions), port: args[0], host: args[1], lookup })
        : connectTls(...args);
    const timer = setTimeout(() => socket.destroy(new Error('TLS handshake timed out')), ms);
    socket.once('secureConnect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
    return socket;
  }) as typeof tls.connect;
}

/** Ends the connection whatever state it is in; never throws. */
export async function close(client: Client): Promise<void> {
  await client.unbind().catch(() => {});
}

/** The server could not be reached or did not answer (as opposed to answering with a refusal). */
export const isUnreachable = (err: unknown) => !(err instanceof ResultCodeError);
