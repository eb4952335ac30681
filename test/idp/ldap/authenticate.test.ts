import net from 'node:net';
import { inspect } from 'node:util';
import { Client } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors';
import { authenticateWithLdap as authenticateIn } from '../../../src/domain/idp/ldap/authenticate';
import { checkLdapConfig, type LdapProviderConfig } from '../../../src/domain/idp/ldap/config';
import { userFilter } from '../../../src/domain/idp/ldap/user-filter';
import { freePort } from '../../helpers/process';
import { type Slapd, startSlapd } from '../../helpers/slapd';

/** The directory runs on loopback, which only a server in development mode may reach. */
const authenticate = (...args: [LdapProviderConfig, { bindPassword: string }, string, string]) =>
  authenticateIn(...args, { development: true });

const ALICE_DN = 'uid=alice,ou=people,dc=example,dc=org';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What the caller of authenticate sees of a failure. */
async function failure(p: Promise<unknown>): Promise<{ kind: string; key: string; message: string }> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    const { kind, key, message } = err as DomainError;
    return { kind, key, message };
  }
  throw new Error('expected the sign-in to fail, and it succeeded');
}

const INVALID = {
  kind: 'unauthenticated',
  key: 'Errors.IdP.Ldap.InvalidCredentials',
  message: 'the username or password is wrong',
};

describe('LDAP sign-in against a real OpenLDAP', () => {
  let slapd: Slapd;
  let config: (over?: Partial<LdapProviderConfig>) => LdapProviderConfig;
  const secrets = () => ({ bindPassword: slapd.bindPassword });
  const silent: net.Server[] = [];

  beforeAll(async () => {
    slapd = await startSlapd({ tls: true });
    config = (over = {}) => ({
      ...checkLdapConfig({
        servers: [slapd.url],
        baseDn: slapd.baseDn,
        bindDn: slapd.bindDn,
        userObjectClasses: ['inetOrgPerson'],
        userFilters: ['uid', 'mail'],
        idAttribute: 'entryUUID',
        timeoutSeconds: 5,
      }),
      ...over,
    });
  });
  afterAll(async () => {
    for (const s of silent) s.close();
    await slapd?.stop();
  });

  /** A server that accepts TCP connections and never says a word. */
  async function silentServer(): Promise<string> {
    const server = net.createServer(() => {});
    silent.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  }

  /** A loopback proxy to slapd that counts the connections made through it. */
  async function countingProxy(): Promise<{ url: string; connections: () => number }> {
    let count = 0;
    const target = new URL(slapd.url);
    const server = net.createServer((client) => {
      count++;
      const upstream = net.connect(Number(target.port), target.hostname);
      const cut = () => {
        client.destroy();
        upstream.destroy();
      };
      for (const s of [client, upstream]) s.on('error', cut);
      client.pipe(upstream).pipe(client);
    });
    silent.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `ldap://127.0.0.1:${(server.address() as net.AddressInfo).port}`, connections: () => count };
  }

  /**
   * A server that grants StartTLS (an ExtendedResponse with success to the first request) and then
   * never starts the TLS handshake.
   */
  async function stallingStartTlsServer(): Promise<string> {
    const server = net.createServer((socket) => {
      socket.once('data', (request) => {
        // LDAPMessage { messageID, extendedResp [APPLICATION 24] { success, "", "" } }; the id is
        // echoed from the request, which starts 30 <len> 02 01 <id> for the client's small ids.
        socket.write(
          Buffer.from([0x30, 0x0c, 0x02, 0x01, request[4], 0x78, 0x07, 0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00]),
        );
      });
    });
    silent.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `ldap://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  }

  it('signs alice in by uid and by mail, mapping her attributes and the entryUUID as id', async () => {
    const byUid = await authenticate(config(), secrets(), 'alice', 'alice-secret');
    expect(byUid).toMatchObject({
      id: expect.stringMatching(UUID),
      username: 'alice',
      email: 'alice@example.org',
      emailVerified: false,
      givenName: 'Alice',
      familyName: 'Liddell',
      displayName: 'Alice Liddell',
      phone: '+41 44 555 01 01',
      preferredLanguage: 'en',
    });
    expect(byUid.raw).toMatchObject({ dn: [ALICE_DN], uid: ['alice'] });
    const byMail = await authenticate(config(), secrets(), 'alice@example.org', 'alice-secret');
    expect(byMail.id).toBe(byUid.id);
    expect((await authenticate(config({ idAttribute: 'uid' }), secrets(), 'ALICE', 'alice-secret')).id).toBe('alice');
  });

  it('a wrong password and an unknown user fail with the same error; the password shows nowhere in it', async () => {
    const wrong = await failure(authenticate(config(), secrets(), 'alice', 'bob-secret'));
    const unknown = await failure(authenticate(config(), secrets(), 'mallory', 'bob-secret'));
    expect(wrong).toEqual(INVALID);
    expect(unknown).toEqual(INVALID);
    const err = await authenticate(config(), secrets(), 'alice', 'Tr0ub4dor&3').catch((e) => e);
    expect(inspect(err, { depth: 10 })).not.toContain('Tr0ub4dor');
  });

  it('an unknown or ambiguous name costs the same connections and binds as a wrong password', async () => {
    const proxy = await countingProxy();
    const cfg = config({ servers: [proxy.url] });
    const costs: Record<string, number> = {};
    for (const name of ['alice', 'mallory', 'shared@example.org']) {
      const before = proxy.connections();
      expect(await failure(authenticate(cfg, secrets(), name, 'wrong-password')), name).toEqual(INVALID);
      costs[name] = proxy.connections() - before;
    }
    expect(costs).toEqual({ alice: 2, mallory: 2, 'shared@example.org': 2 });
  });

  it('an empty or blank password is refused without asking the server, which would have let it in', async () => {
    // The attack is real on this server: a bind with a DN and no password succeeds (as anonymous).
    const raw = new Client({ url: slapd.url });
    await expect(raw.bind(ALICE_DN, '')).resolves.toBeUndefined();
    await raw.unbind();

    for (const password of ['', ' ', '\t\n']) {
      expect(await failure(authenticate(config(), secrets(), 'alice', password))).toEqual(INVALID);
    }
    // Refused before any connection: with no server reachable it is still "wrong password", not "unavailable".
    const down = config({ servers: [`ldap://127.0.0.1:${await freePort()}`] });
    expect(await failure(authenticate(down, secrets(), 'alice', ''))).toEqual(INVALID);
    expect(await failure(authenticate(config(), secrets(), '', 'alice-secret'))).toEqual(INVALID);
  });

  it('filter syntax in the login name never matches anyone and never widens the search', async () => {
    const attacks = ['*', 'alice)(uid=*', '*)(|(uid=*', 'admin*', '\\2a', 'alice\0', '*)(objectClass=*', 'a*e'];
    const service = new Client({ url: slapd.url });
    await service.bind(slapd.bindDn, slapd.bindPassword);
    try {
      for (const name of attacks) {
        const { searchEntries } = await service.search(slapd.baseDn, { filter: userFilter(config(), name) });
        expect(searchEntries, name).toEqual([]);
        for (const password of ['alice-secret', 'admin-secret', 'x']) {
          expect(await failure(authenticate(config(), secrets(), name, password)), name).toEqual(INVALID);
        }
      }
    } finally {
      await service.unbind();
    }
    // The values are escaped (RFC 4515) wherever the filter is shown as text, too.
    expect(userFilter(config(), '*)(uid=*\\').toString()).toContain('(uid=\\2a\\29\\28uid=\\2a\\5c)');
  });

  it('the user whose uid is made of filter characters signs in with exactly that name', async () => {
    const weird = await authenticate(config({ idAttribute: 'uid' }), secrets(), 'weird*(user)\\', 'weird-secret');
    expect(weird).toMatchObject({ id: 'weird*(user)\\', displayName: 'Weird User' });
    expect(await failure(authenticate(config(), secrets(), 'weird*', 'weird-secret'))).toEqual(INVALID);
  });

  it('a name that matches two entries signs in neither, even with the right password', async () => {
    expect(await failure(authenticate(config(), secrets(), 'shared@example.org', 'carol-secret'))).toEqual(INVALID);
    expect((await authenticate(config(), secrets(), 'carol', 'carol-secret')).username).toBe('carol');
  });

  it('an entry without the user object classes cannot sign in', async () => {
    expect(await failure(authenticate(config(), secrets(), 'printer', 'printer-secret'))).toEqual(INVALID);
  });

  it("a wrong or empty service password is the provider's fault, not the user's", async () => {
    for (const bindPassword of ['wrong', '']) {
      expect(await failure(authenticate(config(), { bindPassword }, 'alice', 'alice-secret'))).toMatchObject({
        kind: 'failed_precondition',
        key: 'Errors.IdP.Ldap.ServiceBindFailed',
        message: expect.stringContaining('bind DN or bind password is wrong'),
      });
    }
  });

  it('a base DN that does not exist is a failed precondition naming the base DN', async () => {
    const cfg = config({ baseDn: 'ou=nowhere,dc=example,dc=org' });
    expect(await failure(authenticate(cfg, secrets(), 'alice', 'alice-secret'))).toMatchObject({
      kind: 'failed_precondition',
      key: 'Errors.IdP.Ldap.SearchFailed',
      message: expect.stringContaining('base DN'),
    });
  });

  it('an entry without the id attribute fails only after the password was proven', async () => {
    const cfg = config({ idAttribute: 'employeeNumber' });
    expect(await failure(authenticate(cfg, secrets(), 'alice', 'wrong'))).toEqual(INVALID);
    expect(await failure(authenticate(cfg, secrets(), 'alice', 'alice-secret'))).toMatchObject({
      kind: 'failed_precondition',
      key: 'Errors.IdP.Ldap.NoId',
    });
  });

  it('a server that is down is unavailable at once', async () => {
    const cfg = config({ servers: [`ldap://127.0.0.1:${await freePort()}`] });
    const started = Date.now();
    expect(await failure(authenticate(cfg, secrets(), 'alice', 'alice-secret'))).toMatchObject({
      kind: 'unavailable',
      key: 'Errors.IdP.Ldap.Unavailable',
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a server that accepts the connection and never answers is unavailable within the timeout', async () => {
    for (const scheme of ['ldap', 'ldaps']) {
      const cfg = config({ servers: [`${scheme}://${await silentServer()}`], timeoutSeconds: 1 });
      const started = Date.now();
      expect(await failure(authenticate(cfg, secrets(), 'alice', 'alice-secret')), scheme).toMatchObject({
        kind: 'unavailable',
      });
      expect(Date.now() - started, scheme).toBeGreaterThanOrEqual(900);
      expect(Date.now() - started, scheme).toBeLessThan(2500);
    }
  });

  it('when the first server is down or silent, the next one signs the user in', async () => {
    const down = `ldap://127.0.0.1:${await freePort()}`;
    const mute = `ldap://${await silentServer()}`;
    const cfg = config({ servers: [down, mute, slapd.url], timeoutSeconds: 1 });
    expect((await authenticate(cfg, secrets(), 'alice', 'alice-secret')).username).toBe('alice');
  });

  it('StartTLS and LDAPS work with the provider CA and are refused without it', async () => {
    const tls = [
      config({ startTls: true, rootCaPem: slapd.caPem }),
      config({ servers: [slapd.ldapsUrl!], rootCaPem: slapd.caPem }),
    ];
    for (const cfg of tls) {
      expect((await authenticate(cfg, secrets(), 'alice', 'alice-secret')).username).toBe('alice');
      const untrusted = { ...cfg, rootCaPem: undefined };
      expect(await failure(authenticate(untrusted, secrets(), 'alice', 'alice-secret'))).toMatchObject({
        kind: 'unavailable',
        key: 'Errors.IdP.Ldap.Unavailable',
      });
    }
  });

  it('StartTLS that the server does not offer fails as unavailable; nothing is sent in clear', async () => {
    const plain = await startSlapd();
    try {
      const cfg = config({ servers: [plain.url], startTls: true, rootCaPem: slapd.caPem });
      expect(await failure(authenticate(cfg, secrets(), 'alice', 'alice-secret'))).toMatchObject({
        kind: 'unavailable',
      });
    } finally {
      await plain.stop();
    }
  });

  it('a StartTLS handshake that never happens is unavailable within the timeout', async () => {
    const cfg = config({ servers: [await stallingStartTlsServer()], startTls: true, timeoutSeconds: 1 });
    const started = Date.now();
    expect(await failure(authenticate(cfg, secrets(), 'alice', 'alice-secret'))).toMatchObject({
      kind: 'unavailable',
    });
    expect(Date.now() - started).toBeLessThan(2500);
  });
});
