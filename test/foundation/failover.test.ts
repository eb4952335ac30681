import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiApp, addProject } from '../helpers/apps';
import { defaultOrgId } from '../helpers/context';
import { onPostgres } from '../helpers/database';
import { addMachine } from '../helpers/machines';
import { type PgPair, startPrimaryAndStandby } from '../helpers/pg-cluster';
import { startTwoReplicas } from '../helpers/replicas';
import { startTestServer } from '../helpers/server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/**
 * PostgreSQL as operators run it for availability: a primary and a synchronous standby (the machine's
 * own binaries, two loopback ports), Portcullis given both hosts. Runs once, in the PGlite pass (it
 * builds its own servers either way).
 */
describe.skipIf(onPostgres)('PostgreSQL primary and synchronous standby', () => {
  let pair: PgPair;
  beforeAll(async () => {
    pair = await startPrimaryAndStandby();
    const admin = pair.sql(pair.primary);
    await admin`create database first_start`;
    await admin`create database failover`;
    await admin.end();
  }, 60_000);
  afterAll(() => pair?.stop());

  async function createUser(base: string, token: string, organizationId: string, username: string) {
    const res = await fetch(`${base}/portcullis.user.v2.UserService/CreateUser`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        organizationId,
        username,
        human: { profile: { givenName: 'Ada', familyName: 'L' }, email: { email: `${username}@example.com` } },
      }),
      signal: AbortSignal.timeout(15_000),
    });
    return res.status;
  }

  it('with the standby named first, settles on the primary: writes succeed and /readyz says ready', async () => {
    const url =
      `postgres://postgres@127.0.0.1:${pair.standby.port},127.0.0.1:${pair.primary.port}/first_start` +
      '?target_session_attrs=read-write';
    const server = await startTestServer({ DATABASE_URL: url, PORTCULLIS_DB_POOL_SIZE: '4' });
    try {
      // postgres.js alone takes the standby for read-write (it reports default_transaction_read_only off),
      // and every write there fails with 25006.
      const org = await defaultOrgId(server);
      for (let i = 0; i < 5; i++) expect(await createUser(server.url, server.pat, org, `first-${i}`)).toBe(200);
      expect((await server.fetch('/readyz')).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('rides through a crash of the primary and promoting the standby: nothing acknowledged is lost', async () => {
    const { one, twoUrl, stop } = await startTwoReplicas({ DATABASE_URL: pair.multiHostUrl('failover') });
    const replicas = [one.url, twoUrl];
    const org = await defaultOrgId(one);
    const machine = await addMachine(one);
    const projectId = await addProject(one);
    const api = await addApiApp(one, projectId);
    // The API app sees tokens whose audience names its project.
    const scope = `openid urn:service:iam:org:project:id:${projectId}:aud`;
    const oauth = (base: string, path: string, auth: string, form: Record<string, string>) =>
      fetch(`${base}/oauth/v2/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: auth },
        body: new URLSearchParams(form),
        signal: AbortSignal.timeout(15_000),
      });
    const machineAuth = basic(machine.username, machine.clientSecret);
    const active = async (base: string, token: string) =>
      (await (await oauth(base, 'introspect', basic(api.clientId, api.clientSecret), { token })).json()).active;

    const statuses: number[] = [];
    const created: string[] = [];
    const revoked: string[] = [];
    const odd: string[] = [];
    let running = true;
    const users = async (n: number) => {
      for (let i = 0; running; i++) {
        const name = `load-${n}-${i}`;
        const status = await createUser(replicas[i % 2], one.pat, org, name).catch(() => 0);
        statuses.push(status);
        if (status === 200) created.push(name);
        else await sleep(50);
      }
    };
    const tokens = async () => {
      for (let i = 0; running; i++) {
        const base = replicas[i % 2];
        const res = await oauth(base, 'token', machineAuth, { grant_type: 'client_credentials', scope }).catch(
          () => null,
        );
        statuses.push(res?.status ?? 0);
        if (res && res.status !== 200 && res.status !== 503) odd.push(`token ${res.status} ${await res.text()}`);
        if (res?.status !== 200) {
          await sleep(50);
          continue;
        }
        const { access_token } = await res.json();
        const gone = await oauth(replicas[(i + 1) % 2], 'revoke', machineAuth, { token: access_token }).catch(
          () => null,
        );
        statuses.push(gone?.status ?? 0);
        if (gone && gone.status !== 200 && gone.status !== 503) odd.push(`revoke ${gone.status} ${await gone.text()}`);
        if (gone?.status === 200) revoked.push(access_token);
      }
    };
    const load = [users(1), users(2), tokens()];
    let recoveredAfterMs = Number.NaN;
    try {
      await sleep(1000);
      await pair.primary.crash();
      await sleep(2000);
      // While no primary exists: not ready, and the API says unavailable rather than failing or hanging.
      for (const base of replicas) expect((await fetch(`${base}/readyz`)).status).toBe(503);
      await sleep(1000);
      await pair.standby.promote();
      const promoted = Date.now();
      for (const base of replicas) {
        for (;;) {
          if ((await createUser(base, one.pat, org, `probe-${Date.now()}`).catch(() => 0)) === 200) break;
          if (Date.now() - promoted > 30_000) throw new Error(`${base} did not recover within 30 s`);
          await sleep(100);
        }
      }
      recoveredAfterMs = Date.now() - promoted;
      await sleep(1500);
    } finally {
      running = false;
      await Promise.all(load);
    }
    expect(recoveredAfterMs).toBeLessThan(30_000);
    expect(odd).toEqual([]);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);

    // Every user whose creation answered 200 is on the new primary.
    const sql = postgres(pair.standby.url('failover'), { max: 1, onnotice: () => {} });
    try {
      const rows = await sql`select username from users where username like 'load-%'`;
      const stored = new Set(rows.map((r) => r.username));
      expect(created.filter((u) => !stored.has(u))).toEqual([]);
    } finally {
      await sql.end();
    }
    // Every revocation that answered 200 still holds, on both replicas.
    expect(revoked.length).toBeGreaterThan(0);
    for (const token of revoked.slice(-20)) for (const base of replicas) expect(await active(base, token)).toBe(false);

    // Both replicas listen again: a token introspected (and cached) on one, revoked on the other, is at
    // once inactive on the first.
    const res = await oauth(one.url, 'token', machineAuth, { grant_type: 'client_credentials', scope });
    const { access_token } = await res.json();
    expect(await active(twoUrl, access_token)).toBe(true);
    expect((await oauth(one.url, 'revoke', machineAuth, { token: access_token })).status).toBe(200);
    expect(await active(twoUrl, access_token)).toBe(false);
    await stop();
  }, 120_000);
});
