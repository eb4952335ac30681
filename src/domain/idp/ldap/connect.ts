import { isIP } from 'node:net';
import tls from 'node:tls';
import { Client, ResultCodeError } from 'ldapts';
import type { LdapProviderConfig } from './config';

/**
 * A client for one server of the provider, already upgraded with StartTLS when the provider asks
 * for it. Connecting, the TLS handshake and every operation are bounded by the provider's timeout,
 * so a server that accepts the connection and then says nothing cannot hold a sign-in.
 * Failures to reach the server are thrown as they are (see `isUnreachable`).
 */
export async function connect(config: LdapProviderConfig, server: string): Promise<Client> {
  const ms = config.timeoutSeconds * 1000;
  const { hostname } = new URL(server);
  const host = hostname.replace(/^\[|\]$/g, '');
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
    createSecureConnection: handshakeWithin(ms),
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

// ldapts bounds connecting but not the TLS handshake of StartTLS; this bounds both handshakes.
function handshakeWithin(ms: number): typeof tls.connect {
  const connectTls = tls.connect as (...args: unknown[]) => tls.TLSSocket;
  return ((...args: unknown[]) => {
    const socket = connectTls(...args);
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
