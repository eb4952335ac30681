import { randomBytes } from 'node:crypto';
import os from 'node:os';
import postgres from 'postgres';
import { largestProcessRssMb, startServer } from './lib/server';
import type { BenchOptions, Metric, ScenarioResult } from './lib/types';

/**
 * Bulk import and event search on PostgreSQL, with the server in its own process:
 *  1. imports USERS users with pbkdf2-sha256 hashes (Keycloak's form) in ONE request, the body sent as
 *     a stream (a million users is about 600 MB, more than one JavaScript string holds) → users/s and
 *     the server's peak RSS during the import (target: under 400 MB whatever the body's size)
 *  2. fills the event store up to EVENTS events (generate_series), then times event searches by
 *     type, by aggregate id and by resource owner with limit 1000 → p50 / p95.
 * Targets (2 cores): ≥ 10,000 users/s; p95 ≤ 50 ms.
 * BENCH_USERS and BENCH_EVENTS change the sizes.
 */
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const ORGS = 10;
const SEARCHES = 1000;

export default async function importScenario(opts: BenchOptions): Promise<ScenarioResult> {
  opts.progress('import: starting the server on a scratch PostgreSQL database');
  // One server process: its RSS is the figure (the import runs in the process that takes the request).
  const server = await startServer({
    storage: 'postgres',
    baseUrl: opts.databaseUrl,
    profile: opts.profile ? 'import' : false,
    env: {
      PORTCULLIS_WORKERS: '1',
      ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
    },
  });
  const sql = postgres(server.databaseUrl!, { max: 2, onnotice: () => {} });
  try {
    const post = (p: string, body: string) =>
      fetch(server.url + p, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.pat}` },
        body,
      });

    // 1. the import, in one request
    opts.progress(`import: ${USERS} users in ${ORGS} organizations, body streamed`);
    const pid = server.process.pid!;
    const idleRss = largestProcessRssMb(pid);
    let peakRss = idleRss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, largestProcessRssMb(pid));
    }, 100);
    const t0 = performance.now();
    let sent = 0;
    const chunks = importBody();
    const res = await fetch(`${server.url}/admin/v1/import`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.pat}` },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.next();
          if (next.done) controller.close();
          else {
            sent += next.value.length;
            controller.enqueue(next.value);
          }
        },
      }),
      // @ts-expect-error Node's fetch needs this for a stream body
      duplex: 'half',
    });
    const result = (await res.json()) as any;
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    peakRss = Math.max(peakRss, largestProcessRssMb(pid));
    opts.progress(
      `import: body ${(sent / 1024 / 1024).toFixed(0)} MB; ` +
        `server RSS ${idleRss} MB idle, ${peakRss} MB at most during the import`,
    );
    const imported = (result.success?.orgs ?? []).reduce((n: number, o: any) => n + o.humanUserIds.length, 0);
    if (res.status !== 200 || imported !== USERS)
      throw new Error(
        `import failed: HTTP ${res.status}, ${imported} users, ${JSON.stringify(result.errors?.slice(0, 3))}`,
      );
    const usersPerSecond = Math.round(USERS / seconds);
    opts.progress(`import: ${seconds.toFixed(2)} s → ${usersPerSecond} users/s`);

    // 2. the event store filled up to EVENTS
    const [{ n: existing }] = await sql`select count(*)::int as n from events`;
    const [{ id: instanceId }] = await sql`select id from instances limit 1`;
    const fill = Math.max(0, EVENTS - existing);
    const types = [
      'user.human.changed',
      'user.human.password.changed',
      'session.added',
      'oidc_session.added',
      'user.human.email.verified',
    ];
    for (let start = 0; start < fill; start += 250_000) {
      const end = Math.min(fill, start + 250_000);
      await sql`
        insert into events (instance_id, aggregate_type, aggregate_id, sequence, event_type, payload,
          editor_user_id, editor_service, resource_owner, created_at)
        select ${instanceId}, 'user', 'bench-' || (g / 10), (g % 10) + 1, (${types}::text[])[(g % ${types.length}) + 1],
          jsonb_build_object('n', g), 'bench', 'bench', 'bench-org-' || (g % 500),
          now() - make_interval(secs => ${fill} - g)
        from generate_series(${start}::bigint, ${end - 1}::bigint) g`;
      opts.progress(`import: generated ${end} of ${fill} extra events`);
    }
    await sql`analyze events`;
    const [{ n: total }] = await sql`select count(*)::int as n from events`;

    // 3. searches with limit 1000: half on the imported data, half on the generated data
    const orgIds = result.success.orgs.map((o: any) => o.orgId);
    const userIds = result.success.orgs.flatMap((o: any) => o.humanUserIds);
    const scenarios: Record<string, (i: number) => object> = {
      type: (i) => ({ eventTypes: [i % 2 ? 'user.human.added' : types[i % types.length]], limit: 1000 }),
      'aggregate id': (i) => ({
        aggregateId: i % 2 ? userIds[(i * 7919) % userIds.length] : `bench-${(i * 104729) % Math.max(1, fill / 10)}`,
        limit: 1000,
      }),
      'resource owner': (i) => ({
        resourceOwner: i % 2 ? orgIds[i % orgIds.length] : `bench-org-${i % 500}`,
        limit: 1000,
      }),
    };
    const metrics: Metric[] = [
      {
        name: 'import (pbkdf2-sha256 hashes, one request)',
        value: usersPerSecond,
        unit: 'users/s',
        target: { op: '>=', value: 10_000 },
      },
      {
        name: `server peak RSS while importing ${USERS} users`,
        value: peakRss,
        unit: 'MB',
        target: { op: '<=', value: 400 },
      },
    ];
    const notes = [
      `${USERS} users in ${ORGS} organizations (${(sent / 1024 / 1024).toFixed(0)} MB body) ` +
        `in ${seconds.toFixed(2)} s; ${total} events in the store for the searches`,
      `load average at the start of the searches: ${os.loadavg()[0].toFixed(1)} (2 cores)`,
    ];
    for (const [name, filter] of Object.entries(scenarios)) {
      for (let i = 0; i < 10; i++)
        await (await post('/admin/v1/events/_search', JSON.stringify(filter(i)))).arrayBuffer();
      const times: number[] = [];
      let count = 0;
      for (let i = 0; i < SEARCHES; i++) {
        const s = performance.now();
        const r = await post('/admin/v1/events/_search', JSON.stringify(filter(i)));
        const bytes = await r.arrayBuffer();
        // The answer is complete here; parsing it is the client's work, not the server's latency.
        times.push(performance.now() - s);
        const json = JSON.parse(Buffer.from(bytes).toString('utf8')) as any;
        if (r.status !== 200) throw new Error(`search failed: ${JSON.stringify(json)}`);
        count += json.events.length;
      }
      times.sort((a, b) => a - b);
      const p50 = round(times[Math.floor(times.length * 0.5)]);
      const p95 = round(times[Math.floor(times.length * 0.95)]);
      metrics.push({
        name: `event search by ${name} (limit 1000), p95`,
        value: p95,
        unit: 'ms',
        p50,
        p95,
        target: { op: '<=', value: 50 },
      });
      notes.push(`search by ${name}: ${Math.round(count / SEARCHES)} events per response on average, p50 ${p50} ms`);
    }
    return { scenario: 'import', metrics, notes };
  } finally {
    await sql.end();
    await server.stop();
  }
}

/** Keycloak-style users (pbkdf2-sha256, 27,500 iterations, 16-byte salt, 32-byte key), as JSON text in chunks. */
const randomBase64 = (bytes: number) => randomBytes(bytes).toString('base64');

function* importBody(): Generator<Uint8Array> {
  const per = Math.ceil(USERS / ORGS);
  const run = Date.now();
  yield Buffer.from('{"timeout":"60m0s","dataOrgs":{"orgs":[');
  for (let o = 0; o < ORGS; o++) {
    const orgId = `5${o}${run}`;
    yield Buffer.from(`${o ? ',' : ''}{"orgId":"${orgId}","org":{"name":"Bench ${orgId}"},"humanUsers":[`);
    const count = Math.min(per, USERS - o * per);
    for (let start = 0; start < count; start += 1000) {
      const users: string[] = [];
      for (let u = start; u < Math.min(count, start + 1000); u++) {
        users.push(
          JSON.stringify({
            userId: `${orgId}${u}`,
            user: {
              userName: `user${u}@${orgId}.example.com`,
              profile: { firstName: 'Bench', lastName: `User ${u}`, preferredLanguage: 'en' },
              email: { email: `user${u}@${orgId}.example.com`, isEmailVerified: true },
              hashedPassword: {
                value: `$pbkdf2-sha256$27500$${randomBase64(16)}$${randomBase64(32)}`,
              },
            },
          }),
        );
      }
      yield Buffer.from((start ? ',' : '') + users.join(','));
    }
    yield Buffer.from(']}');
  }
  yield Buffer.from(']}}');
}

const round = (ms: number) => Math.round(ms * 10) / 10;
