import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { startTestServer, type TestServer } from '../helpers/server';
import { FIXTURE_REALMS, migrateRealms } from './run-cli';
import { addRelyingParty, signedInSubject } from '../helpers/login-flow';

/**
 * Every real Keycloak export goes into its own organization of ONE server, next to the bootstrap
 * administrator: three realms have an `admin` and a `user`, and none of them is lost. Every user with a
 * known password then signs in through the hosted login with `<username>@<organization domain>`.
 */
describe('real Keycloak exports, each in its own organization of one server', () => {
  let server: TestServer;
  let config: client.Configuration;
  let domains: Map<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server, { basicAuth: true });
    domains = await migrateRealms(server, FIXTURE_REALMS);
  }, 120_000);
  afterAll(() => server?.stop());

  const signIn = (loginName: string, password: string, scope?: string) =>
    signedInSubject(server, config, loginName, password, scope);

  it('imports every user: usernames shared across realms and with the bootstrap admin collide nowhere', async () => {
    const users = (await server.client(UserService).listUsers({})).result;
    const admins = users.filter((u) => u.username === 'admin');
    // The bootstrap administrator and the admin of three realms.
    expect(admins.map((u) => u.organizationId).sort()).toEqual(expect.arrayContaining(['kc11', 'kc23', 'kc3']));
    expect(admins).toHaveLength(4);
    for (const realm of FIXTURE_REALMS) {
      for (const name of Object.keys(realm.passwords)) {
        expect(
          users.find((u) => u.username === name && u.organizationId === realm.org),
          `${name} in ${realm.org}`,
        ).toBeDefined();
      }
    }
    expect(users.some((u) => u.organizationId === 'kc22')).toBe(true);
  });

  it('each known-password user signs in by login name, as itself; no realm password opens another realm', async () => {
    for (const realm of FIXTURE_REALMS) {
      for (const [name, password] of Object.entries(realm.passwords)) {
        const loginName = `${name}@${domains.get(realm.org)}`;
        const sub = await signIn(loginName, password);
        const user = (
          await server
            .client(UserService)
            .getUserByID({ userId: sub ?? 'none' })
            .catch(() => undefined)
        )?.user;
        expect(user?.organizationId, loginName).toBe(realm.org);
        expect(user?.username).toBe(name);
        expect(await signIn(loginName, `${password}-wrong`), `${loginName} with a wrong password`).toBeUndefined();
      }
    }
    // The realm admins' password "admin" is not the bootstrap administrator's.
    expect(await signIn('admin', 'admin')).toBeUndefined();
    // A username only one realm has is accepted bare.
    expect(await signIn('bilbo', 'bilbo')).toBeDefined();
  });
});
