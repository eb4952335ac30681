import { eq, sql } from 'drizzle-orm';
import { pgTable, text } from 'drizzle-orm/pg-core';
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemPrincipal } from '../../src/authz/principal';
import { type Database, openDatabase } from '../../src/db/client';
import { Runtime } from '../../src/deps';
import { outboxColumns, outboxDueIndex } from '../../src/db/schema/outbox-columns';
import type { Ctx } from '../../src/domain/context';
import { defineOutbox } from '../../src/domain/outbox/outbox';
import { freshDatabase, onPostgres } from '../helpers/database';
import { newId } from '../../src/domain/ids';

/** A third outbox, declared the way a new one (webhooks) would be: a table with the outbox columns, and a spec. */
const probes = pgTable(
  'outbox_probes',
  { id: text('id').primaryKey(), receiver: text('receiver').notNull(), ...outboxColumns() },
  (t) => [outboxDueIndex('outbox_probes', t)],
);
const LEASE = 600;
const MAX_ATTEMPTS = 3;
/** 200 s after the first failure, 400 s after the second */
const delay = (attempts: number) => 100 * 2 ** attempts;

/** What each receiver got, in order; a receiver named `down` fails every time. */
let received: string[] = [];
const send = async (row: typeof probes.$inferSelect) => {
  received.push(row.id);
  if (row.receiver === 'down') throw new Error(`receiver down (attempt ${row.attempts})`);
};
const probeOutbox = defineOutbox({
  name: 'probe-delivery',
  table: probes,
  pollMs: 1000,
  batch: 20,
  leaseSeconds: LEASE,
  maxAttempts: MAX_ATTEMPTS,
  retryDelay: delay,
  sender: () => send,
});

describe('the outbox primitive on the real database', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let ctx: Ctx;
  beforeAll(async () => {
    const fresh = await freshDatabase();
    drop = fresh.drop;
    database = await openDatabase({
      databaseUrl: fresh.url,
      dataDir: 'memory://',
      poolSize: 4,
      queryTimeoutMs: 10_000,
    });
    for (const statement of await generateMigration(generateDrizzleJson({}), generateDrizzleJson({ probes })))
      await database.db.execute(sql.raw(statement));
    ctx = {
      db: database.db,
      runtime: new Runtime(),
      instanceId: 'probe',
      principal: systemPrincipal('probe', 'test'),
      service: 'test',
    };
  });
  afterAll(async () => {
    await database?.close();
    await drop?.();
  });
  beforeEach(async () => {
    received = [];
    await database.db.delete(probes);
  });

  const add = async (n: number, receiver = 'up') => {
    const rows = Array.from({ length: n }, () => ({ id: newId(), receiver }));
    await database.db.insert(probes).values(rows);
    return rows.map((r) => r.id);
  };
  const row = async (id: string) => (await database.db.select().from(probes).where(eq(probes.id, id)))[0];
  /** The clock moves on by `seconds` for every row: the test does not sleep through leases and back-offs. */
  const elapse = (seconds: number) =>
    database.db.update(probes).set({
      nextAttemptAt: sql`${probes.nextAttemptAt} - make_interval(secs => ${seconds})`,
      createdAt: sql`${probes.createdAt} - make_interval(secs => ${seconds})`,
    });

  it('two claimers at once get disjoint rows, and every row is delivered exactly once', async () => {
    const ids = await add(30);
    const claimed = await Promise.all([
      probeOutbox.deliverBatch(ctx, send),
      probeOutbox.deliverBatch(ctx, send),
      probeOutbox.deliverBatch(ctx, send),
    ]);
    expect(claimed.reduce((a, b) => a + b)).toBe(30);
    expect(received.toSorted()).toEqual(ids.toSorted());
    const rows = await database.db.select().from(probes);
    expect(rows.every((r) => r.status === 'SENT' && r.attempts === 1 && r.sentAt && r.lastError === null)).toBe(true);
  });

  it.skipIf(!onPostgres)('a claim skips the rows another claimer holds, without waiting for it', async () => {
    const ids = await add(30);
    await database.db.transaction(async (tx) => {
      const first = await probeOutbox.claim(tx as unknown as Database['db'], 20);
      // the first claimer's transaction is still open, its row locks held
      const second = await probeOutbox.claim(database.db, 20);
      expect(first).toHaveLength(20);
      expect(second).toHaveLength(10);
      expect([...first, ...second].map((r) => r.id).toSorted()).toEqual(ids.toSorted());
    });
  });

  it('a failing delivery is retried after its back-off, then FAILED with its last error', async () => {
    const [id] = await add(1, 'down');
    expect(await probeOutbox.deliverBatch(ctx, send)).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'PENDING', attempts: 1, lastError: 'receiver down (attempt 1)' });

    // not before the back-off is over
    await elapse(delay(1) / 2);
    expect(await probeOutbox.deliverBatch(ctx, send)).toBe(0);
    await elapse(delay(1) / 2);
    expect(await probeOutbox.deliverBatch(ctx, send)).toBe(1);
    expect(await row(id)).toMatchObject({ status: 'PENDING', attempts: 2, lastError: 'receiver down (attempt 2)' });

    // the back-off doubles
    await elapse(delay(1));
    expect(await probeOutbox.deliverBatch(ctx, send)).toBe(0);
    await elapse(delay(2) - delay(1));
    expect(await probeOutbox.deliverBatch(ctx, send)).toBe(1);
    expect(await row(id)).toMatchObject({
      status: 'FAILED',
      attempts: MAX_ATTEMPTS,
      lastError: `receiver down (attempt ${MAX_ATTEMPTS})`,
      sentAt: null,
    });

    // given up: never claimed again
    await elapse(100_000);
    expect(await probeOutbox.deliverBatch(ctx, send)).toBe(0);
    expect(received).toEqual([id, id, id]);
  });

  it('a row that fails once is delivered on its next attempt', async () => {
    const [id] = await add(1, 'down');
    await probeOutbox.deliverBatch(ctx, send);
    await database.db.update(probes).set({ receiver: 'up' }).where(eq(probes.id, id));
    await elapse(delay(1));
    await probeOutbox.deliverBatch(ctx, send);
    expect(await row(id)).toMatchObject({ status: 'SENT', attempts: 2, lastError: null });
  });

  it('a claimer that dies before recording leaves its rows to be delivered after the lease', async () => {
    const ids = await add(2);
    // claimed, then the process is gone: nothing delivered, nothing recorded
    expect(await probeOutbox.claim(database.db)).toHaveLength(2);

    expect(await probeOutbox.deliverBatch(ctx, send)).toBe(0);
    await elapse(LEASE / 2);
    expect(await probeOutbox.deliverBatch(ctx, send)).toBe(0);
    await elapse(LEASE / 2);
    expect(await probeOutbox.deliverBatch(ctx, send)).toBe(2);
    expect(received.toSorted()).toEqual(ids.toSorted());
    for (const id of ids) expect(await row(id)).toMatchObject({ status: 'SENT', attempts: 2 });
  });

  it('prune deletes SENT and FAILED rows older than the retention, never a PENDING one', async () => {
    await add(1);
    const [failed] = await add(1, 'down');
    await database.db
      .update(probes)
      .set({ attempts: MAX_ATTEMPTS - 1 })
      .where(eq(probes.id, failed));
    await probeOutbox.deliverBatch(ctx, send);
    const [pending] = await add(1, 'down');
    expect((await row(failed)).status).toBe('FAILED');

    expect(await probeOutbox.prune(database.db, 3600)).toBe(0);
    await elapse(3601);
    const [recent] = await add(1);
    await probeOutbox.deliverBatch(ctx, send);
    expect(await probeOutbox.prune(database.db, 3600)).toBe(2);
    const left = await database.db.select({ id: probes.id }).from(probes);
    expect(left.map((r) => r.id).toSorted()).toEqual([pending, recent].toSorted());
  });
});
