import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, users } from '../../src/db/schema/index';
import type { Ctx } from '../../src/domain/context';
import { DomainError } from '../../src/domain/errors';
import { execute, type NewEvent, type UnitOfWork } from '../../src/domain/execute';
import { newId } from '../../src/domain/ids';
import { addHumanUser } from '../../src/domain/user/add-users';
import { onPostgres } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';
import { defaultOrgId, systemCtx } from '../helpers/context';

// The event store does not care what it appends: these tests use a made-up aggregate the registry does not know.
const pushUnregistered = (
  work: UnitOfWork,
  e: { aggregateType: string; aggregateId: string; type: string; payload?: object; resourceOwner: string },
) => work.push(e as unknown as NewEvent);

describe('event store', () => {
  let server: TestServer;
  let ctx: Ctx;
  let orgId: string;
  beforeAll(async () => {
    server = await startTestServer();
    ctx = systemCtx(server);
    orgId = await defaultOrgId(server);
  });
  afterAll(() => server?.stop());

  const addUserFor = async (prefix: string) =>
    (await execute(ctx, (work) => addHumanUser(work, human(`${prefix}-${newId()}`)))).id;

  const eventsOf = (aggregateId: string) =>
    ctx.db.select().from(events).where(eq(events.aggregateId, aggregateId)).orderBy(asc(events.position));

  const human = (username: string) => ({
    orgId,
    username,
    givenName: 'Ada',
    familyName: 'Lovelace',
    email: `${username}@example.com`,
    emailVerified: true,
  });

  it('appends events and projection rows in one transaction, visible right after the command', async () => {
    const { id } = await execute(ctx, (work) => addHumanUser(work, human(`ada-${newId()}`)));
    const [row] = await ctx.db.select().from(users).where(eq(users.id, id));
    expect(row.state).toBe('ACTIVE');
    const evs = await eventsOf(id);
    expect(evs.map((e) => [e.eventType, e.sequence, e.resourceOwner, e.editorUserId, e.editorService])).toEqual([
      ['user.human.added', 1, orgId, 'test', 'test'],
    ]);
    expect(evs[0].payload).toMatchObject({ displayName: 'Ada Lovelace', userName: row.username });
  });

  it('leaves no event behind when the projection update fails (atomicity)', async () => {
    const username = `dup-${newId()}`;
    await execute(ctx, (work) => addHumanUser(work, human(username)));
    const id = newId();
    const err = await execute(ctx, (work) => addHumanUser(work, { ...human(username.toUpperCase()), id })).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect(err.kind).toBe('already_exists');
    expect(await eventsOf(id)).toEqual([]);
  });

  it('leaves neither events nor rows behind when the command throws after pushing', async () => {
    const id = newId();
    await expect(
      execute(ctx, async (work) => {
        await addHumanUser(work, { ...human(`boom-${newId()}`), id });
        throw new Error('check failed late');
      }),
    ).rejects.toThrow('check failed late');
    expect(await eventsOf(id)).toEqual([]);
    expect(await ctx.db.select().from(users).where(eq(users.id, id))).toEqual([]);
  });

  it('gives every aggregate a gapless sequence and the installation a growing position', async () => {
    const id = newId();
    for (let i = 0; i < 5; i++) {
      await execute(ctx, async (work) => {
        await work.load('counter', id);
        pushUnregistered(work, {
          aggregateType: 'counter',
          aggregateId: id,
          type: 'counter.incremented',
          payload: { i },
          resourceOwner: orgId,
        });
      });
    }
    const evs = await eventsOf(id);
    expect(evs.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5]);
    expect(evs.map((e) => (e.payload as { i: number }).i)).toEqual([0, 1, 2, 3, 4]);
    const positions = evs.map((e) => e.position);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it.skipIf(!onPostgres)(
    'runs a command again when PostgreSQL aborts it in a deadlock, so both writers succeed',
    async () => {
      const [a, b] = [await addUserFor('dl-a'), await addUserFor('dl-b')];
      // Two commands lock the same two rows in opposite order, each waiting until the other holds its first
      // lock: PostgreSQL aborts one with 40P01, which execute runs again once the other has committed.
      let held = 0;
      const bothHold = async () => {
        held++;
        while (held < 2) await new Promise((r) => setTimeout(r, 10));
      };
      const lockBoth = (first: string, second: string) =>
        execute(ctx, async (work) => {
          await work.tx.select().from(users).where(eq(users.id, first)).for('update');
          await bothHold();
          await work.tx.select().from(users).where(eq(users.id, second)).for('update');
          return 'done';
        });
      const results = await Promise.allSettled([lockBoth(a, b), lockBoth(b, a)]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    },
  );

  it('keeps sequences gapless when many writers change one aggregate at once', async () => {
    const id = newId();
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        execute(ctx, async (work) => {
          await work.load('counter', id);
          pushUnregistered(work, {
            aggregateType: 'counter',
            aggregateId: id,
            type: 'counter.incremented',
            payload: { i },
            resourceOwner: orgId,
          });
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    for (const r of results) if (r.status === 'rejected') expect((r.reason as DomainError).kind).toBe('aborted');
    const evs = await eventsOf(id);
    expect(evs.map((e) => e.sequence)).toEqual(Array.from({ length: ok }, (_, i) => i + 1));
    expect(ok).toBeGreaterThan(0);
  });

  it.skipIf(!onPostgres)('detects a writer that checked stale state and re-runs it (sequence conflict)', async () => {
    const id = newId();
    await execute(ctx, async (work) => {
      work.created('counter', id);
      pushUnregistered(work, {
        aggregateType: 'counter',
        aggregateId: id,
        type: 'counter.created',
        resourceOwner: orgId,
      });
    });
    let attempts = 0;
    let sawSequence = -1;
    await execute(ctx, async (work) => {
      attempts++;
      sawSequence = await work.load('counter', id);
      if (attempts === 1) {
        // Another writer commits between our check and our append.
        await execute(ctx, async (other) => {
          await other.load('counter', id);
          pushUnregistered(other, {
            aggregateType: 'counter',
            aggregateId: id,
            type: 'counter.incremented',
            resourceOwner: orgId,
          });
        });
      }
      pushUnregistered(work, {
        aggregateType: 'counter',
        aggregateId: id,
        type: 'counter.incremented',
        resourceOwner: orgId,
      });
    });
    expect(attempts).toBe(2);
    expect(sawSequence).toBe(2);
    const evs = await ctx.db
      .select({ seq: events.sequence })
      .from(events)
      .where(and(eq(events.aggregateType, 'counter'), eq(events.aggregateId, id)));
    expect(evs.map((e) => e.seq).sort()).toEqual([1, 2, 3]);
  });
});

describe('event store: flushing twice in one command', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('continues the aggregate sequence after a mid-command flush', async () => {
    const ctx = systemCtx(server);
    const id = newId();
    await execute(ctx, async (work) => {
      work.created('counter', id);
      pushUnregistered(work, {
        aggregateType: 'counter',
        aggregateId: id,
        type: 'counter.created',
        resourceOwner: 'o',
      });
      await work.flush();
      pushUnregistered(work, {
        aggregateType: 'counter',
        aggregateId: id,
        type: 'counter.incremented',
        resourceOwner: 'o',
      });
    });
    const rows = await ctx.db
      .select({ seq: events.sequence, type: events.eventType })
      .from(events)
      .where(eq(events.aggregateId, id))
      .orderBy(asc(events.position));
    expect(rows).toEqual([
      { seq: 1, type: 'counter.created' },
      { seq: 2, type: 'counter.incremented' },
    ]);
  });
});
