import type { DescService } from '@bufbuild/protobuf';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdministratorService } from '../../gen/portcullis/administrator/v2/administrator_service_pb';
import { ApplicationService } from '../../gen/portcullis/application/v2/application_service_pb';
import { AuthorizationService } from '../../gen/portcullis/authorization/v2/authorization_service_pb';
import { EventService } from '../../gen/portcullis/event/v2/event_service_pb';
import { IdentityProviderService } from '../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { OIDCService } from '../../gen/portcullis/oidc/v2/oidc_service_pb';
import { OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { ProjectService } from '../../gen/portcullis/project/v2/project_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { SettingsService } from '../../gen/portcullis/settings/v2/settings_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { READS_ON_PRIMARY, READS_ON_REPLICA } from '../../src/api/interceptors/read-routing';
import { loadConfig } from '../../src/config';
import { hostUrls, parseLsn } from '../../src/db/read-router';
import { addOidcApp, addProject } from '../helpers/apps';
import { defaultOrgId } from '../helpers/context';
import { freshDatabase, onPostgres } from '../helpers/database';
import { addMachineWithToken } from '../helpers/machines';
import { unique } from '../helpers/names';
import { type PgPair, startPrimaryAndStandby } from '../helpers/pg-cluster';
import { waitFor } from '../helpers/process';
import { startTwoReplicas } from '../helpers/replicas';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

const SERVICES: DescService[] = [
  AdministratorService,
  ApplicationService,
  AuthorizationService,
  EventService,
  IdentityProviderService,
  InstanceService,
  OIDCService,
  OrganizationService,
  ProjectService,
  SessionService,
  SettingsService,
  UserService,
];

describe('which reads a replica serves', () => {
  it('every Get and List RPC is declared once: on the replica or, with a reason, on the primary', () => {
    const reads = SERVICES.flatMap((s) =>
      s.methods.filter((m) => /^(Get|List)/.test(m.name)).map((m) => `${s.typeName}/${m.name}`),
    );
    expect(reads.length).toBeGreaterThan(30);
    const undecidedOrBoth = reads.filter((p) => READS_ON_REPLICA.has(p) === p in READS_ON_PRIMARY);
    expect(undecidedOrBoth).toEqual([]);
    // and nothing declared that the API does not have
    const all = new Set(SERVICES.flatMap((s) => s.methods.map((m) => `${s.typeName}/${m.name}`)));
    expect([...READS_ON_REPLICA, ...Object.keys(READS_ON_PRIMARY)].filter((p) => !all.has(p))).toEqual([]);
  });

  it('DATABASE_READ_URL needs PostgreSQL, and a driver setting that would refuse every standby is refused', () => {
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://replica/db' })).toThrow(
      'DATABASE_READ_URL needs DATABASE_URL',
    );
    expect(() =>
      loadConfig({
        DATABASE_URL: 'postgres://primary/db',
        DATABASE_READ_URL: 'postgres://r1,r2/db?target_session_attrs=read-only',
      }),
    ).toThrow('use standby or prefer-standby');
    expect(() => loadConfig({ DATABASE_URL: 'postgres://primary/db', PORTCULLIS_DB_READ_MAX_LAG: '0' })).toThrow(
      'PORTCULLIS_DB_READ_MAX_LAG must be between 1 and 3600',
    );
  });

  it('compares WAL positions as numbers, not as text', () => {
    expect(parseLsn('0/10') > parseLsn('0/9')).toBe(true);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    expect(parseLsn('A/16B3748')).toBe((10n << 32n) + 0x16b3748n);
    expect(() => parseLsn('16B3748')).toThrow();
    expect(hostUrls('postgres://u:p@h1:5432,h2:5433/db?target_session_attrs=standby')).toEqual([
      'postgres://u:p@h1:5432/db?target_session_attrs=standby',
      'postgres://u:p@h2:5433/db?target_session_attrs=standby',
    ]);
  });
});

/**
 * A "replica" that is the server's own database in read-only sessions (`default_transaction_read_only`): a
 * read that wrote would fail there and run again on the primary, which the fallback counter shows.
 */
describe.runIf(onPostgres)('the reads a replica serves', () => {
  it('each answers from a read-only database: none writes, so none falls back to the primary', async () => {
    const db = await freshDatabase();
    const server = await startTestServer({
      DATABASE_URL: db.url!,
      DATABASE_READ_URL: `${db.url}?default_transaction_read_only=on&application_name=pc-read-only`,
      PORTCULLIS_DB_READ_MAX_LAG: '1',
    });
    const admin = postgres(db.url!, { max: 1, onnotice: () => {} });
    try {
      const orgId = await defaultOrgId(server);
      const human = (await addUser(server)).id;
      const machine = (await addMachineWithToken(server, orgId)).userId;
      const projectId = await addProject(server);
      const { applicationId } = await addOidcApp(server, projectId);
      const calls: Record<string, [unknown, number?]> = {
        [user('GetUserByID')]: [{ userId: human }],
        [user('ListUsers')]: [{}],
        [user('ListKeys')]: [{ userId: machine }],
        [user('ListPersonalAccessTokens')]: [{ userId: machine }],
        [user('ListUserMetadata')]: [{ userId: human }],
        [user('ListPasskeys')]: [{ userId: human }],
        [user('ListAuthenticationMethodTypes')]: [{ userId: human }],
        [user('ListAuthorizedApplications')]: [{ userId: human }],
        [user('ListIDPLinks')]: [{ userId: human }],
        [org('GetOrganization')]: [{ organizationId: orgId }],
        [org('ListOrganizations')]: [{}],
        [org('ListOrganizationDomains')]: [{ organizationId: orgId }],
        [org('ListOrganizationMetadata')]: [{ organizationId: orgId }],
        'portcullis.event.v2.EventService/ListEvents': [{}],
        [instance('ListInstanceDomains')]: [{}],
        [instance('ListWebKeys')]: [{}],
        [project('GetProject')]: [{ projectId }],
        [project('ListProjects')]: [{}],
        [project('ListProjectRoles')]: [{ projectId }],
        [project('ListProjectGrants')]: [{}],
        [application('GetApplication')]: [{ applicationId }],
        [application('ListApplications')]: [{}],
        [application('ListApplicationKeys')]: [{ applicationId }],
        'portcullis.authorization.v2.AuthorizationService/ListAuthorizations': [{}],
        'portcullis.administrator.v2.AdministratorService/ListAdministrators': [{}],
        'portcullis.idp.v2.IdentityProviderService/GetIdentityProvider': [{ id: 'none' }, 404],
        'portcullis.idp.v2.IdentityProviderService/ListIdentityProviders': [{}],
      };
      expect(Object.keys(calls).sort()).toEqual([...READS_ON_REPLICA].sort());
      const call = (procedure: string, body: unknown) =>
        server.fetch(`/${procedure}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      // The router reads from the replica once it has polled it and heard for the maximum lag since the start:
      // then the pool has connections of its own next to the poll's.
      await waitFor(
        async () => {
          await call(user('ListUsers'), {});
          const [r] =
            await admin`select count(*)::int as n from pg_stat_activity where application_name = 'pc-read-only'`;
          return r.n >= 2;
        },
        15_000,
        'reads on the read-only pool',
      );
      const before = await fallbacks(server);
      for (const [procedure, [body, status = 200]] of Object.entries(calls)) {
        const res = await call(procedure, body);
        expect({ procedure, status: res.status }).toEqual({ procedure, status });
      }
      const search = await server.fetch('/admin/v1/events/_search', { method: 'POST', body: '{}' });
      expect(search.status).toBe(200);
      expect(await fallbacks(server)).toBe(before);
    } finally {
      await admin.end();
      await server.stop();
      await db.drop();
    }
  }, 60_000);
});

async function fallbacks(server: TestServer): Promise<number> {
  const metrics = await (await server.fetch('/metrics')).text();
  return Number(/^portcullis_database_replica_fallbacks_total (\S+)$/m.exec(metrics)?.[1]);
}

const user = (m: string) => `portcullis.user.v2.UserService/${m}`;
const org = (m: string) => `portcullis.org.v2.OrganizationService/${m}`;
const project = (m: string) => `portcullis.project.v2.ProjectService/${m}`;
const application = (m: string) => `portcullis.application.v2.ApplicationService/${m}`;
const instance = (m: string) => `portcullis.instance.v2.InstanceService/${m}`;

/**
 * A primary and an asynchronous standby that applies each commit 2 s late; two Portcullis processes read
 * from it with the default maximum lag of 5 s. Runs once, in the PGlite pass (it builds its own PostgreSQL
 * either way).
 */
describe.skipIf(onPostgres)('a read replica behind the primary', () => {
  const DATABASE = 'replicas';
  let pair: PgPair;
  let server: TestServer;
  /** the second process */
  let twoUrl: string;
  let stopBoth: () => Promise<void>;
  /** a second administrator (IAM_OWNER) who wrote nothing */
  let other: string;
  let orgId: string;

  beforeAll(async () => {
    pair = await startPrimaryAndStandby({ asynchronous: { applyDelay: '2s' } });
    const admin = pair.sql(pair.primary);
    await admin.unsafe(`create database ${DATABASE}`);
    await admin.end();
    ({
      one: server,
      twoUrl,
      stop: stopBoth,
    } = await startTwoReplicas({
      DATABASE_URL: pair.primary.url(DATABASE),
      DATABASE_READ_URL: pair.standby.url(DATABASE),
      PORTCULLIS_DB_POOL_SIZE: '4',
    }));
    orgId = await defaultOrgId(server);
    other = (await addMachineWithToken(server, orgId, { roles: ['IAM_OWNER'] })).token;
  }, 90_000);
  afterAll(async () => {
    await stopBoth?.();
    await pair?.stop();
  });

  async function rpc(token: string, method: string, body: unknown, base = server.url) {
    const res = await fetch(`${base}/portcullis.user.v2.UserService/${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, body: await res.json() };
  }
  async function createHuman(username: string): Promise<string> {
    const res = await rpc(server.pat, 'CreateUser', {
      organizationId: orgId,
      username,
      human: { profile: { givenName: 'Ada', familyName: 'L' }, email: { email: `${username}@example.com` } },
    });
    expect(res.status).toBe(200);
    return res.body.id;
  }
  async function createHumanNamed(prefix: string): Promise<string> {
    const username = unique(prefix);
    await createHuman(username);
    return username;
  }
  async function lists(token: string, username: string, base = server.url): Promise<boolean> {
    const res = await rpc(token, 'ListUsers', { filters: [{ usernameFilter: { value: username } }] }, base);
    expect(res.status).toBe(200);
    return (res.body.result ?? []).length === 1;
  }
  /** what the standby itself holds, asked directly */
  async function onStandby(username: string): Promise<boolean> {
    const sql = pair.sql(pair.standby, DATABASE);
    try {
      return (await sql`select 1 from users where username = ${username}`).length === 1;
    } finally {
      await sql.end();
    }
  }

  it('another caller lists from the replica, a little behind; the writer reads its own writes at once', async () => {
    let stale = '';
    const deadline = Date.now() + 40_000;
    for (let round = 0; round < 6 || !stale; round++) {
      expect(Date.now()).toBeLessThan(deadline);
      const username = unique('rep-');
      const id = await createHuman(username);
      // Someone else, at once: the replica (2 s behind) has not applied the user yet, once the router
      // uses it (from the max lag and a poll after the start).
      if (!(await lists(other, username))) stale = username;
      // The writer, at once: its own write, through GetUserByID and ListUsers, every round.
      const got = await rpc(server.pat, 'GetUserByID', { userId: id });
      expect(got.status).toBe(200);
      expect(got.body.user.username).toBe(username);
      expect(await lists(server.pat, username)).toBe(true);
    }
    // The stale answer was the replica's: it comes round once the replica applies the commit.
    await waitFor(() => lists(other, stale), 15_000, 'the replica to apply the user');
  }, 90_000);

  it('on another process too: the commit announces its writer, who reads the write there at once', async () => {
    let stale = false;
    const deadline = Date.now() + 40_000;
    for (let round = 0; round < 6 || !stale; round++) {
      expect(Date.now()).toBeLessThan(deadline);
      const username = unique('rep-two-');
      const id = await createHuman(username);
      if (!(await lists(other, username, twoUrl))) stale = true;
      const got = await rpc(server.pat, 'GetUserByID', { userId: id }, twoUrl);
      expect(got.status).toBe(200);
      expect(got.body.user.username).toBe(username);
      expect(await lists(server.pat, username, twoUrl)).toBe(true);
    }
  }, 60_000);

  it('while a process may have missed announcements, it reads everything from the primary', async () => {
    const admin = pair.sql(pair.primary, DATABASE);
    try {
      // Cut every LISTEN connection: announcements sent until each process subscribes again are lost.
      const cut = await admin`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = ${DATABASE} and query like 'listen %'`;
      expect(cut.length).toBeGreaterThanOrEqual(2);
    } finally {
      await admin.end();
    }
    // Until the maximum lag (5 s) and a poll after subscribing again, the other caller sees every new user at once.
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      const username = unique('rep-deaf-');
      await createHuman(username);
      expect(await lists(other, username)).toBe(true);
      expect(await lists(other, username, twoUrl)).toBe(true);
    }
    // and then the replica serves again
    await waitFor(async () => !(await lists(other, await createHumanNamed('rep-heard-'))), 20_000, 'replica reads');
  }, 60_000);

  it('a revoked personal access token is refused at once, though the replica still lists it', async () => {
    const username = unique('rep-bot-');
    const created = await rpc(server.pat, 'CreateUser', {
      organizationId: orgId,
      username,
      machine: { name: username },
    });
    expect(created.status).toBe(200);
    const userId = created.body.id;
    const pat = await rpc(server.pat, 'AddPersonalAccessToken', { userId });
    expect(pat.status).toBe(200);
    const listsToken = async () =>
      ((await rpc(other, 'ListPersonalAccessTokens', { userId })).body.result ?? []).some(
        (t: { id: string }) => t.id === pat.body.tokenId,
      );
    await waitFor(listsToken, 15_000, 'the replica to list the token');
    expect((await rpc(pat.body.token, 'ListUsers', {})).status).toBe(200);

    expect((await rpc(server.pat, 'RemovePersonalAccessToken', { userId, tokenId: pat.body.tokenId })).status).toBe(
      200,
    );
    const refused = await rpc(pat.body.token, 'ListUsers', {});
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('unauthenticated');
    // the replica had not applied the revocation yet when the token was refused
    expect(await listsToken()).toBe(true);
    await waitFor(async () => !(await listsToken()), 15_000, 'the replica to apply the revocation');
  }, 60_000);

  it('a replica further behind than the maximum lag serves nothing', async () => {
    const standby = pair.sql(pair.standby);
    await standby`select pg_wal_replay_pause()`;
    try {
      const username = unique('rep-paused-');
      await createHuman(username);
      const lag = async () => {
        const metrics = await (await server.fetch('/metrics')).text();
        return Number(/^portcullis_database_replica_lag_seconds (\S+)$/m.exec(metrics)?.[1]);
      };
      // Once the replica is more than the maximum lag (5 s) behind, the other caller's list comes from the
      // primary, while the standby (replay paused) still does not hold the user.
      // (-1: so far behind that no sample the router keeps is old enough to tell by how much)
      await waitFor(
        async () => [await lag()].some((l) => l === -1 || l > 5),
        20_000,
        'the replica to fall more than 5 s behind',
      );
      expect(await lists(other, username)).toBe(true);
      expect(await onStandby(username)).toBe(false);
    } finally {
      await standby`select pg_wal_replay_resume()`;
      await standby.end();
    }
  }, 60_000);

  it('with the replica gone, reads come from the primary: no error, and the server stays ready', async () => {
    const username = unique('rep-down-');
    await createHuman(username);
    await waitFor(() => lists(other, username), 15_000, 'the replica to apply the user');
    await pair.standby.crash();
    for (let i = 0; i < 10; i++) {
      expect(await lists(other, username)).toBe(true);
      const res = await rpc(other, 'ListUsers', {});
      expect(res.status).toBe(200);
    }
    const search = await fetch(`${server.url}/admin/v1/events/_search`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${other}` },
      body: JSON.stringify({ limit: 5 }),
    });
    expect(search.status).toBe(200);
    expect((await search.json()).events.length).toBe(5);
    expect((await server.fetch('/readyz')).status).toBe(200);
  }, 60_000);
});
