import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import * as client from 'openid-client';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventService } from '../../gen/portcullis/event/v2/event_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { addApiApp, addProject } from '../helpers/apps';
import { defaultOrgId } from '../helpers/context';
import { onPostgres } from '../helpers/database';
import { basic, postForm } from '../helpers/forms';
import { addRelyingParty, codeFlowTokens } from '../helpers/login-flow';
import { PGBOUNCER, startPgBouncer } from '../helpers/pgbouncer';
import { startTestServer, type TestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

const DIRECT = 'postgres://postgres@127.0.0.1:5432';

/**
 * Behind a connection pooler in transaction mode (Debian's PgBouncer 1.18: no prepared statements there, each
 * transaction on whichever server connection is free): the pool goes through it with prepared statements off,
 * LISTEN and the start's advisory locks through DATABASE_LISTEN_URL. Runs once, in the PGlite pass.
 */
describe.skipIf(onPostgres || !fs.existsSync(PGBOUNCER))('behind PgBouncer in transaction mode', () => {
  const db = `pc_bouncer_${randomBytes(4).toString('hex')}`;
  let bouncer: Awaited<ReturnType<typeof startPgBouncer>>;
  let server: TestServer;
  beforeAll(async () => {
    const admin = postgres(`${DIRECT}/postgres`, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${db}`);
    await admin.end();
    bouncer = await startPgBouncer();
    server = await startTestServer({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${bouncer.port}/${db}`,
      DATABASE_LISTEN_URL: `${DIRECT}/${db}`,
      PORTCULLIS_DB_PREPARED_STATEMENTS: 'false',
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await bouncer?.stop();
    const admin = postgres(`${DIRECT}/postgres`, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${db} with (force)`);
    await admin.end();
  });

  it('serves the API and a whole sign-in through it, and the pooler carried the transactions', async () => {
    const created = await server.client(UserService).createUser({
      organizationId: await defaultOrgId(server),
      username: 'pooled',
      userType: {
        case: 'human',
        value: { profile: { givenName: 'Pooled', familyName: 'User' }, email: { email: 'p@example.com' } },
      },
    });
    const listed = await server.client(UserService).listUsers({});
    expect(listed.result.map((u) => u.userId)).toContain(created.id);

    const project = await addProject(server);
    const config = await addRelyingParty(server);
    const api = await addApiApp(server, project);
    const user = await addUser(server);
    const { tokens } = await codeFlowTokens(server, config, user);
    expect(tokens.claims()!.sub).toBe(user.id);
    const info = await client.fetchUserInfo(config, tokens.access_token, user.id);
    expect(info.sub).toBe(user.id);
    const introspect = async () =>
      (
        await postForm(
          server,
          '/oauth/v2/introspect',
          { token: tokens.access_token },
          {
            authorization: basic(api.clientId, api.clientSecret),
          },
        )
      ).json();
    await client.tokenRevocation(config, tokens.access_token);
    expect((await introspect()).active).toBe(false);

    const { events } = await server.client(EventService).listEvents({ aggregateId: created.id });
    expect(events.map((e) => e.type)).toContain('user.human.added');

    // PgBouncer's own count: the server's transactions went through it
    const console = postgres(`postgres://postgres@127.0.0.1:${bouncer.port}/pgbouncer`, {
      max: 1,
      prepare: false,
      fetch_types: false,
      onnotice: () => {},
    });
    try {
      const stats = await console.unsafe('show stats').simple();
      const ours = stats.find((r: Record<string, unknown>) => r.database === db);
      expect(Number(ours?.total_xact_count)).toBeGreaterThan(20);
    } finally {
      await console.end();
    }
  }, 120_000);

  it('answers a burst of concurrent reads and writes (pipelined queries stalled behind it)', async () => {
    const users = server.client(UserService);
    const orgId = await defaultOrgId(server);
    const { id } = await users.createUser({
      organizationId: orgId,
      username: `burst-${randomBytes(3).toString('hex')}`,
      userType: { case: 'human', value: { profile: { givenName: 'B', familyName: 'U' }, email: { email: 'b@x.org' } } },
    });
    // More requests than connections (the server's 5, PgBouncer's 8), reads and writes mixed.
    const calls = Array.from({ length: 60 }, (_, i) =>
      i % 3 === 0
        ? users.createUser({
            organizationId: orgId,
            username: `burst-${i}-${randomBytes(3).toString('hex')}`,
            userType: {
              case: 'human',
              value: { profile: { givenName: 'B', familyName: `${i}` }, email: { email: `b${i}@x.org` } },
            },
          })
        : i % 3 === 1
          ? users.getUserByID({ userId: id })
          : users.listUsers({}),
    );
    const settled = await Promise.allSettled(calls);
    expect(settled.filter((r) => r.status === 'rejected').map((r) => String(r.reason))).toEqual([]);
    for (const [i, r] of settled.entries()) {
      // each answer is its own: a read of the user is that user, never another request's rows
      if (i % 3 === 1) expect((r as PromiseFulfilledResult<{ user?: { userId: string } }>).value.user?.userId).toBe(id);
    }
  }, 60_000);
});
