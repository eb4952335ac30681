import { randomUUID } from 'node:crypto';
import type { Client, Entry } from 'ldapts';
import { DomainError } from '../../errors';
import type { ExternalUser } from '../external-user';
import type { LdapProviderConfig, LdapProviderSecrets } from './config';
import { close, connect, isUnreachable } from './connect';
import { invalidCredentials, ldapUnavailable, searchFailed, serviceBindFailed } from './errors';
import { attributesToRead, toExternalUser } from './map-entry';
import { userFilter } from './user-filter';

// Longer login names are no one's; refusing them early keeps oversized input off the directory.
const MAX_LOGIN_NAME = 256;

export interface DirectoryOptions {
  /** the server runs in development mode (isDevelopmentIssuer): a directory on loopback may be reached */
  development: boolean;
}

/**
 * Signs a user in against the provider's directory: search the one entry the login name names (as
 * the service account), then bind as that entry with the password on a fresh connection. The
 * password only ever travels in that bind; it is neither kept nor logged.
 */
export async function authenticateWithLdap(
  config: LdapProviderConfig,
  secrets: LdapProviderSecrets,
  username: string,
  password: string,
  opts: DirectoryOptions,
): Promise<ExternalUser> {
  refuseBlankCredentials(username, password);
  const { server, entry } = await findUser(config, secrets, username, opts);
  // An unknown or ambiguous name still costs a bind (to a DN no one has), so that the time a
  // refusal takes does not tell which names exist.
  await bindAsUser(config, server, entry?.dn ?? noOnesDn(config), password, opts);
  if (!entry) throw invalidCredentials();
  return toExternalUser(config, entry);
}

/**
 * A simple bind with an empty password is an anonymous bind (RFC 4513 §5.1.2) that many servers
 * answer with success, so it must never reach the directory as a proof of the password.
 */
function refuseBlankCredentials(username: string, password: string): void {
  if (username.trim() === '' || username.length > MAX_LOGIN_NAME || password.trim() === '') {
    throw invalidCredentials();
  }
}

/** Tries the servers in order; the first that answers decides. */
async function findUser(
  config: LdapProviderConfig,
  secrets: LdapProviderSecrets,
  username: string,
  opts: DirectoryOptions,
): Promise<{ server: string; entry?: Entry }> {
  if (secrets.bindPassword === '') throw serviceBindFailed(new Error('the bind password is empty'));
  const failures: Error[] = [];
  for (const server of config.servers) {
    try {
      return { server, entry: await searchUser(config, secrets, server, username, opts) };
    } catch (err) {
      if (err instanceof DomainError) throw err;
      failures.push(new Error(`${server}: ${(err as Error).message}`, { cause: err }));
    }
  }
  throw ldapUnavailable(new AggregateError(failures, 'no LDAP server of the provider answered'));
}

async function searchUser(
  config: LdapProviderConfig,
  secrets: LdapProviderSecrets,
  server: string,
  username: string,
  opts: DirectoryOptions,
): Promise<Entry | undefined> {
  const client = await connect(config, server, opts.development);
  try {
    await refusalAs(serviceBindFailed, client.bind(config.bindDn, secrets.bindPassword));
    const { searchEntries } = await refusalAs(
      searchFailed,
      client.search(config.baseDn, {
        scope: 'sub',
        filter: userFilter(config, username),
        attributes: attributesToRead(config),
        // Two are enough to know the name is ambiguous.
        sizeLimit: 2,
        timeLimit: config.timeoutSeconds,
      }),
    );
    // No entry or several: the name identifies no one, and which of the two it was must not show.
    return searchEntries.length === 1 ? searchEntries[0] : undefined;
  } finally {
    await close(client);
  }
}

const noOnesDn = (config: LdapProviderConfig) => `cn=portcullis-no-such-user-${randomUUID()},${config.baseDn}`;

async function bindAsUser(
  config: LdapProviderConfig,
  server: string,
  dn: string,
  password: string,
  opts: DirectoryOptions,
): Promise<void> {
  let client: Client | undefined;
  try {
    client = await connect(config, server, opts.development);
    await refusalAs(() => invalidCredentials(), client.bind(dn, password));
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw ldapUnavailable(new Error(`${server}: ${(err as Error).message}`, { cause: err }));
  } finally {
    if (client) await close(client);
  }
}

/** Turns the server's refusal (an LDAP result code) into `toError`; failures to reach it pass through. */
async function refusalAs<T>(toError: (cause: unknown) => DomainError, operation: Promise<T>): Promise<T> {
  try {
    return await operation;
  } catch (err) {
    throw isUnreachable(err) ? err : toError(err);
  }
}
