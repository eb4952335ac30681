import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/database';
import { addMachine } from '../helpers/machines';
import type { TestServer } from '../helpers/server';
import { withServerBehindProxy } from '../helpers/tcp-proxy';
import { addUser } from '../helpers/users';

const TIMEOUT_S = 2;
const settings = { PORTCULLIS_DB_QUERY_TIMEOUT: String(TIMEOUT_S) };
/**
 * Far above what the setting allows (connecting, then one unanswered statement: about twice the timeout),
 * and far below the time a request hung before: a request still waiting then is a hang, not a slow answer.
 */
const HANG_MS = TIMEOUT_S * 1000 * 5;

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

function rpc(server: TestServer, method: string, body: object): Promise<Response> {
  return server.fetch(`/portcullis.user.v2.UserService/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(HANG_MS),
  });
}

function createUser(server: TestServer, organizationId: string, username: string): Promise<Response> {
  return rpc(server, 'CreateUser', {
    organizationId,
    username,
    human: { profile: { givenName: 'Ada', familyName: 'L' }, email: { email: `${username}@example.com` } },
  });
}

/**
 * The issue this answers: with one database host gone silent, requests hung for 20 s and more. Runs in the
 * PostgreSQL pass (it needs a server to put a proxy in front of).
 */
describe.skipIf(!onPostgres)('a database that stops answering', () => {
  it('ends every request as unavailable within the deadline, and serves again once it answers', async () => {
    await withServerBehindProxy(async (server, proxy) => {
      const user = await addUser(server);
      // Not used before the freeze: a token for a machine user already in the caches needs no database.
      const machine = await addMachine(server);
      const calls = {
        v2: async () => {
          const res = await rpc(server, 'GetUserByID', { userId: user.id });
          return { status: res.status, error: (await res.json()).code };
        },
        v2write: async () => {
          const res = await createUser(server, user.orgId, `frozen-${Date.now()}`);
          return { status: res.status, error: (await res.json()).code };
        },
        oauth: async () => {
          const res = await fetch(`${server.url}/oauth/v2/token`, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/x-www-form-urlencoded',
              Authorization: basic(machine.username, machine.clientSecret),
            },
            body: 'grant_type=client_credentials&scope=openid',
            signal: AbortSignal.timeout(HANG_MS),
          });
          return { status: res.status, error: (await res.json()).error };
        },
        v1: async () => {
          const res = await server.fetch(`/management/v1/users/${user.id}`, { signal: AbortSignal.timeout(HANG_MS) });
          return { status: res.status, error: (await res.json()).code };
        },
        login: async () => {
          const res = await fetch(`${server.url}/ui/login/login?authRequest=someone`, {
            signal: AbortSignal.timeout(HANG_MS),
          });
          await res.text();
          return { status: res.status, error: res.headers.get('content-type')?.split(';')[0] };
        },
      };
      const unavailable = {
        v2: { status: 503, error: 'unavailable' },
        v2write: { status: 503, error: 'unavailable' },
        oauth: { status: 503, error: 'temporarily_unavailable' },
        v1: { status: 503, error: 14 },
        login: { status: 503, error: 'text/html' },
      };
      const all = async () => {
        const entries = Object.entries(calls).map(async ([name, call]) => [name, await call()] as const);
        return Object.fromEntries(await Promise.all(entries));
      };

      proxy.freeze();
      // The first round waits on connections already open, which never answer; the second on new
      // connections, which never finish connecting.
      expect(await all()).toEqual(unavailable);
      expect(await all()).toEqual(unavailable);

      proxy.thaw();
      const created = await createUser(server, user.orgId, 'after-the-thaw');
      expect(created.status).toBe(200);
      const { id } = await created.json();
      const got = await rpc(server, 'GetUserByID', { userId: id });
      expect(got.status).toBe(200);
      expect((await got.json()).user.username).toBe('after-the-thaw');
      expect((await calls.oauth()).status).toBe(200);
      expect((await calls.v1()).status).toBe(200);
    }, settings);
  }, 60_000);

  it('keeps a connection that owes nothing: an idle one outlives the deadline', async () => {
    // The driver's reply_timeout as src/db/deadline.ts sets it, on one connection, so that every statement
    // shares it: a plain query, a transaction and a connection's first statement must all stop the timer.
    const sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {}, reply_timeout: 0.5 });
    try {
      const pid = async () => (await sql`select pg_backend_pid() as pid`)[0].pid as number;
      const first = await pid();
      await sql.begin((tx) => tx`select 1`);
      await new Promise((r) => setTimeout(r, 1500));
      expect(await pid()).toBe(first);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it('cancels a write held up by a row lock as unavailable, and it succeeds once the lock is free', async () => {
    await withServerBehindProxy(async (server, _proxy, directUrl) => {
      const user = await addUser(server);
      const other = postgres(directUrl, { max: 1, onnotice: () => {} });
      try {
        const holder = await other.reserve();
        await holder`begin`;
        await holder`select id from users where id = ${user.id} for update`;
        const blocked = await rpc(server, 'DeactivateUser', { userId: user.id });
        expect(blocked.status).toBe(503);
        expect((await blocked.json()).code).toBe('unavailable');
        // The server cancelled the statement itself: nothing is left waiting for the lock (a client that only
        // stopped waiting would leave its statement queued there until the lock is released).
        const [{ waiting }] = await holder`
          select count(*)::int as waiting from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`;
        expect(waiting).toBe(0);
        await holder`rollback`;
        holder.release();
      } finally {
        // Not waiting for a transaction a failed assertion left open.
        await other.end({ timeout: 1 });
      }
      const done = await rpc(server, 'DeactivateUser', { userId: user.id });
      expect(done.status).toBe(200);
      const got = await rpc(server, 'GetUserByID', { userId: user.id });
      expect((await got.json()).user.state).toBe('USER_STATE_INACTIVE');
    }, settings);
  }, 60_000);
});
