import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApiApp, addOidcApp, addProject, REDIRECT } from '../helpers/apps';
import { Browser } from '../helpers/browser';
import { defaultOrgId } from '../helpers/context';
import { onPostgres } from '../helpers/database';
import { pkceAuthUrl, rp } from '../helpers/login-flow';
import { addMachine } from '../helpers/machines';
import { waitFor } from '../helpers/process';
import { type PgPair, startPrimaryAndStandby } from '../helpers/pg-cluster';
import { startTwoReplicas } from '../helpers/replicas';
import { startTestServer } from '../helpers/server';
import { addUser } from '../helpers/users';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The tiny browser, noting the status of every page and redirect it gets. */
class RecordingBrowser extends Browser {
  constructor(
    base: string,
    private readonly seen: number[],
  ) {
    super(base);
  }
  override async request(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await super.request(url, { ...init, signal: AbortSignal.timeout(15_000) });
    this.seen.push(res.status);
    return res;
  }
}
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
    const web = await addOidcApp(one, projectId);
    const webAuth = basic(web.clientId, web.clientSecret!);
    const person = await addUser(one);
    const relyingParty = await rp(one, web.clientId, web.clientSecret);
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
    // Password sign-ins through the hosted login (on replica one, whose address is the issuer), each code
    // exchanged at either replica. A login that meets the gap ends at the 503 page; the next one starts over.
    const signedIn: string[] = [];
    const logins = async () => {
      for (let i = 0; running; i++) {
        const { url, verifier } = await pkceAuthUrl(relyingParty, { scope: 'openid' });
        let landed: URL;
        try {
          landed = new URL(await new RecordingBrowser(one.url, statuses).login(url, person.username, person.password));
        } catch {
          await sleep(50);
          continue;
        }
        const code = landed.searchParams.get('code') ?? '';
        const res = await oauth(replicas[i % 2], 'token', webAuth, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
        }).catch(() => null);
        statuses.push(res?.status ?? 0);
        if (res && res.status !== 200 && res.status !== 503) odd.push(`code ${res.status} ${await res.text()}`);
        if (res?.status === 200) signedIn.push((await res.json()).access_token);
        else await sleep(50);
      }
    };
    const load = [users(1), users(2), tokens(), logins()];
    let recoveredAfterMs = Number.NaN;
    try {
      await sleep(2000);
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
      await sleep(2500);
    } finally {
      running = false;
      await Promise.all(load);
    }
    const unavailable = statuses.filter((s) => s === 503).length;
    // What an operator would want to know; docs/postgresql.md, "A primary and a standby: failover", quotes it.
    console.info(
      `failover: ${statuses.length} responses, ${unavailable} answered 503, ${created.length} users created, ` +
        `${signedIn.length} sign-ins, ${revoked.length} revocations; both replicas served writes again ` +
        `${recoveredAfterMs} ms after the promotion`,
    );
    expect(recoveredAfterMs).toBeLessThan(30_000);
    expect(odd).toEqual([]);
    // pages, redirects of the sign-in, and 503 while there is no primary: nothing else (no 500, no 4xx)
    expect(statuses.filter((s) => s !== 200 && s !== 503 && !(s >= 300 && s < 400))).toEqual([]);
    expect(unavailable).toBeGreaterThan(0);
    // every sign-in that got its tokens is still valid on both replicas
    expect(signedIn.length).toBeGreaterThan(0);
    for (const token of signedIn.slice(-10)) for (const base of replicas) expect(await active(base, token)).toBe(true);

    // Every user whose creation answered 200 is on the new primary.
    const sql = postgres(pair.standby.url('failover'), { max: 1, onnotice: () => {} });
    try {
      const rows = await sql`select username from users where username like 'load-%'`;
      const stored = new Set(rows.map((r) => r.username));
      expect(created.filter((u) => !stored.has(u))).toEqual([]);
      // The background jobs work again without a restart: the user-count compaction (every 5 s) folds the
      // delta rows that the load's creations left on the new primary into one.
      const deltas = async () => (await sql`select count(*)::int as n from user_counts where org_id = ${org}`)[0].n;
      await waitFor(async () => (await deltas()) === 1, 20_000, 'the background job to compact on the new primary');
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
    // The notification arrives as the revocation commits: milliseconds, bounded here by 2 s (a replica
    // that never listened again would keep the cached answer for a minute).
    await waitFor(async () => !(await active(twoUrl, access_token)), 2_000, 'replica two sees the revocation');
    await stop();
  }, 120_000);
});
