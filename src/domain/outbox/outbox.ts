import { and, eq, inArray, lt, lte, ne, sql } from 'drizzle-orm';
import type { PgColumn, PgTable, PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { systemPrincipal } from '../../authz/principal';
import type { Db } from '../../db/client';
import { type Deps, perServer } from '../../deps';
import type { Job } from '../../jobs';
import type { Ctx } from '../context';
import { execute, type NewEvent } from '../execute';

/** A table that ends with the outbox columns (src/db/schema/outbox-columns.ts). */
export type OutboxTable = PgTable & {
  id: PgColumn;
  status: PgColumn;
  attempts: PgColumn;
  lastError: PgColumn;
  nextAttemptAt: PgColumn;
  createdAt: PgColumn;
  sentAt: PgColumn;
};

/** Delivers one row; throwing (or rejecting) counts as a failed attempt, its message as the row's last error. */
export type Send<Row> = (row: Row) => Promise<void>;

/** What an outbox is: where its rows are, how to deliver one, and how hard to try. */
export interface OutboxSpec<T extends OutboxTable> {
  /** the name of its background job */
  name: string;
  table: T;
  /** how often the job looks for due rows */
  pollMs: number;
  /** rows claimed at once */
  batch: number;
  /** how long a claimed row is hidden from other claimers while one of them delivers it */
  leaseSeconds: number;
  /** attempts before the row is FAILED */
  maxAttempts: number;
  /** seconds until the next attempt after `attempts` attempts, the last of them failed */
  retryDelay: (attempts: number) => number;
  /** delivers a batch's rows all at once (requests to many receivers) instead of one after the other */
  parallel?: boolean;
  /** the function that delivers a row; asked once per claimed batch, so it may load what the batch shares */
  sender: (deps: Deps, ctx: Ctx) => Send<T['$inferSelect']> | Promise<Send<T['$inferSelect']>>;
  /** events written with a row's outcome, in the same transaction; `service` is their editor */
  events?: {
    service: string;
    sent?: (row: T['$inferSelect']) => NewEvent;
    failed?: (row: T['$inferSelect'], error: string) => NewEvent;
  };
  /** SENT and FAILED rows older than this are deleted by the job, once an hour; kept forever when unset */
  keepFinishedSeconds?: number;
}

export interface Outbox<Row> {
  readonly name: string;
  /** Claims up to `limit` due rows; see claimDue. */
  claim(db: Db, limit?: number): Promise<Row[]>;
  /** Claims one batch, delivers it with `send` and records each outcome; returns how many rows it claimed. */
  deliverBatch(ctx: Ctx, send: Send<Row>): Promise<number>;
  /**
   * Drains now (after a commit that queued rows) instead of waiting for the job's next tick. A call
   * while a drain is under way makes that drain go once more, so rows committed meanwhile are not left
   * for the interval. Settles, never rejects, when the rows due now have been tried.
   */
  deliverNow(deps: Deps): Promise<void>;
  /** Deletes SENT and FAILED rows created more than `keepSeconds` ago; returns how many. */
  prune(db: Db, keepSeconds: number): Promise<number>;
  /** The background job: drains every `pollMs` and prunes hourly when `keepFinishedSeconds` is set. */
  readonly job: Job;
}

const PRUNE_EVERY_MS = 3_600_000;
const MAX_ERROR_LENGTH = 500;

/**
 * The one outbox: rows written in the transaction whose change they announce, delivered at least once
 * afterwards by whichever replica claims them, retried with the spec's back-off and given up after
 * `maxAttempts`. Email/SMS (src/domain/notification/outbox.ts), back-channel logout tokens
 * (src/domain/oidc/logout/delivery.ts) and any later outbox are a spec plus a table.
 */
export function defineOutbox<T extends OutboxTable>(spec: OutboxSpec<T>): Outbox<T['$inferSelect']> {
  type Row = T['$inferSelect'];
  const t = spec.table;
  const set = (values: Record<string, unknown>) => values as PgUpdateSetSource<T>;

  /**
   * Claims due PENDING rows with `FOR UPDATE SKIP LOCKED`, counting the attempt and pushing the next one
   * past the lease in the same statement: concurrent claimers get disjoint rows, and a claimer that dies
   * mid-delivery leaves its rows to be claimed again once the lease is over.
   */
  async function claim(db: Db, limit = spec.batch): Promise<Row[]> {
    const due = db
      .select({ id: t.id })
      .from(t as PgTable)
      .where(and(eq(t.status, 'PENDING'), lte(t.nextAttemptAt, sql`now()`)))
      .orderBy(t.nextAttemptAt)
      .limit(limit)
      .for('update', { skipLocked: true });
    return (await db
      .update(t)
      .set(
        set({
          attempts: sql`${t.attempts} + 1`,
          nextAttemptAt: sql`now() + make_interval(secs => ${spec.leaseSeconds})`,
        }),
      )
      .where(inArray(t.id, due))
      .returning()) as Row[];
  }

  /** Each row's outcome (undefined: delivered; else the error), in the order of the batch. */
  async function deliver(rows: Row[], send: Send<Row>): Promise<(string | undefined)[]> {
    const one = async (row: Row) => {
      try {
        await send(row);
        return undefined;
      } catch (err) {
        return String((err as Error)?.message ?? err);
      }
    };
    if (spec.parallel) return Promise.all(rows.map(one));
    const outcomes: (string | undefined)[] = [];
    for (const row of rows) outcomes.push(await one(row));
    return outcomes;
  }

  /**
   * Writes the batch's outcomes and their events in one transaction. A crash before it leaves the rows
   * to be claimed again after their lease: a row is delivered at least once and, short of a crash,
   * exactly once.
   */
  async function record(ctx: Ctx, rows: Row[], outcomes: (string | undefined)[]): Promise<void> {
    await execute(ctx, async (work) => {
      const sent = rows.filter((_, i) => outcomes[i] === undefined).map((r) => r.id as string);
      if (sent.length)
        await work.tx
          .update(t)
          .set(set({ status: 'SENT', sentAt: new Date(), lastError: null }))
          .where(inArray(t.id, sent));
      for (const [i, row] of rows.entries()) {
        const error = outcomes[i];
        if (error === undefined) {
          const event = spec.events?.sent?.(row);
          if (event) work.push(event);
          continue;
        }
        const failed = (row.attempts as number) >= spec.maxAttempts;
        await work.tx
          .update(t)
          .set(
            set({
              status: failed ? 'FAILED' : 'PENDING',
              lastError: error.slice(0, MAX_ERROR_LENGTH),
              nextAttemptAt: sql`now() + make_interval(secs => ${spec.retryDelay(row.attempts as number)})`,
            }),
          )
          .where(eq(t.id, row.id));
        const event = failed ? spec.events?.failed?.(row, error) : undefined;
        if (event) work.push(event);
      }
    });
  }

  async function batchWith(ctx: Ctx, sender: () => Send<Row> | Promise<Send<Row>>): Promise<number> {
    const rows = await claim(ctx.db);
    if (rows.length === 0) return 0;
    const send = await sender();
    await record(ctx, rows, await deliver(rows, send));
    return rows.length;
  }

  const ctxOf = (deps: Deps): Ctx => {
    const service = spec.events?.service ?? spec.name;
    return {
      db: deps.database.db,
      runtime: deps.runtime,
      instanceId: deps.instanceId,
      principal: systemPrincipal(deps.instanceId, service),
      service,
    };
  };

  /** Delivers batch after batch until one comes back short. */
  async function drain(deps: Deps): Promise<void> {
    const ctx = ctxOf(deps);
    while ((await batchWith(ctx, () => spec.sender(deps, ctx))) === spec.batch) {
      // keep going while full batches come back
    }
  }

  /** Each server's drain under way (if any) and when it last pruned this outbox. */
  const state = perServer((): { running?: { again: boolean; done: Promise<void> }; prunedAt: number } => ({
    prunedAt: 0,
  }));
  function deliverNow(deps: Deps): Promise<void> {
    const ofServer = deps.runtime.get(state);
    const current = ofServer.running;
    if (current) {
      current.again = true;
      return current.done;
    }
    const running = { again: true, done: Promise.resolve() };
    running.done = (async () => {
      try {
        while (running.again) {
          running.again = false;
          await drain(deps);
        }
      } catch (err) {
        deps.log.warn({ err, outbox: spec.name }, 'outbox delivery failed; the job retries');
      } finally {
        ofServer.running = undefined;
      }
    })();
    ofServer.running = running;
    return running.done;
  }

  async function prune(db: Db, keepSeconds: number): Promise<number> {
    const gone = await db
      .delete(t)
      .where(and(ne(t.status, 'PENDING'), lt(t.createdAt, sql`now() - make_interval(secs => ${keepSeconds})`)))
      .returning({ id: t.id });
    return gone.length;
  }

  const job: Job = {
    name: spec.name,
    intervalMs: spec.pollMs,
    async run(deps) {
      await deliverNow(deps);
      const keep = spec.keepFinishedSeconds;
      const ofServer = deps.runtime.get(state);
      if (keep === undefined || Date.now() - ofServer.prunedAt < PRUNE_EVERY_MS) return;
      ofServer.prunedAt = Date.now();
      await prune(deps.database.db, keep);
    },
  };

  return {
    name: spec.name,
    claim,
    deliverBatch: (ctx, send) => batchWith(ctx, () => send),
    deliverNow,
    prune,
    job,
  };
}
