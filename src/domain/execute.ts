import { and, eq, max } from 'drizzle-orm';
import type { Db } from '../db/client';
import { insertRows } from '../db/insert-rows';
import { sqlErrorIn } from '../db/sql-error';
import { perServer, type Runtime } from '../deps';
import { events } from '../db/schema/index';
import type { Ctx } from './context';
import { DomainError, aborted, alreadyExists } from './errors';
import type { AggregateType, EventPayloads, EventType } from './events/registry';

/**
 * An event to append. `type` is one of the registry's (src/domain/events/registry.ts), dotted lowercase
 * `<aggregate>.<entity>.<verb>`, and the payload is the one declared for it: a typo in either is a
 * compile error.
 */
export interface NewEvent<T extends EventType = EventType> {
  aggregateType: AggregateType;
  aggregateId: string;
  type: T;
  payload?: EventPayloads[T];
  /** organization that owns the aggregate */
  resourceOwner: string;
}

/**
 * The one way to change state. A command gets a UnitOfWork: it reads and checks through `work.tx`,
 * updates projection rows through `work.tx`, and records what happened with `work.push`. The events
 * are appended in the same transaction when the command returns, so a failing check or projection
 * leaves no event behind, and a reader right after the commit sees the change.
 */
export class UnitOfWork {
  readonly pending: NewEvent[] = [];
  /** every event this command appended so far, for the commit observers */
  readonly appended: NewEvent[] = [];
  /** types of every event this command appended so far */
  readonly appendedTypes = new Set<EventType>();
  private readonly loaded = new Map<string, number>();

  constructor(
    readonly tx: Db,
    readonly ctx: Ctx,
  ) {}

  /**
   * Reads the aggregate's current sequence before the command checks its state. The append then
   * expects exactly that sequence: if another writer appended in between, the unique index on
   * (aggregate_type, aggregate_id, sequence) rejects ours and the command runs again.
   */
  async load(aggregateType: string, aggregateId: string): Promise<number> {
    const key = `${aggregateType}\u0000${aggregateId}`;
    const known = this.loaded.get(key);
    if (known !== undefined) return known;
    const seq = await currentSequence(this.tx, aggregateType, aggregateId);
    this.loaded.set(key, seq);
    return seq;
  }

  /** Declares a brand-new aggregate: its first event must get sequence 1 or the command conflicts. */
  created(aggregateType: string, aggregateId: string): void {
    this.loaded.set(`${aggregateType}\u0000${aggregateId}`, 0);
  }

  push<T extends EventType>(event: NewEvent<T>): void {
    this.pending.push(event as NewEvent);
  }

  /**
   * Counts what a unit of work nested in a savepoint appended (once the savepoint held) as this
   * command's, so the commit observers evict what those events make stale as well.
   */
  adopt(nested: UnitOfWork): void {
    this.appended.push(...nested.appended);
    for (const t of nested.appendedTypes) this.appendedTypes.add(t);
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const rows = [];
    const next = new Map<string, number>();
    for (const e of this.pending) {
      const key = `${e.aggregateType}\u0000${e.aggregateId}`;
      let seq = next.get(key);
      if (seq === undefined)
        seq = this.loaded.get(key) ?? (await currentSequence(this.tx, e.aggregateType, e.aggregateId));
      seq += 1;
      next.set(key, seq);
      this.appendedTypes.add(e.type);
      this.appended.push(e);
      rows.push({
        instanceId: this.ctx.instanceId,
        aggregateType: e.aggregateType,
        aggregateId: e.aggregateId,
        sequence: seq,
        eventType: e.type,
        payload: (e.payload ?? {}) as Record<string, unknown>,
        editorUserId: this.ctx.principal.userId,
        editorService: this.ctx.service,
        resourceOwner: e.resourceOwner,
      });
    }
    this.pending.length = 0;
    // A command may flush more than once (bulk work does): later events continue the sequence.
    for (const [key, seq] of next) this.loaded.set(key, seq);
    await insertRows(this.tx, events, rows);
  }
}

async function currentSequence(tx: Db, aggregateType: string, aggregateId: string): Promise<number> {
  const [row] = await tx
    .select({ seq: max(events.sequence) })
    .from(events)
    .where(and(eq(events.aggregateType, aggregateType), eq(events.aggregateId, aggregateId)));
  return row?.seq ?? 0;
}

/**
 * Learns of every command that appended events: caches of derived state (e.g. looked-up tokens) use
 * it to stay exact. `beforeCommit` runs inside the transaction after the append (a NOTIFY sent there
 * is delivered only if it commits); `afterCommit` once the commit is through.
 */
export interface CommitObserver {
  beforeCommit(work: UnitOfWork, eventTypes: ReadonlySet<string>): Promise<void>;
  afterCommit(eventTypes: ReadonlySet<string>, work: UnitOfWork): void;
}

/** A unique index of a projection → the error a command violating it gets. */
export type UniqueConstraintErrors = Readonly<Record<string, () => DomainError>>;

/** What a server's commands are told of and turn into errors; empty until wireCommands. */
const wiringOf = perServer(() => ({
  observers: [] as readonly CommitObserver[],
  constraintErrors: new Map<string, () => DomainError>(),
}));

/**
 * Installs the commit observers and the unique-constraint table that every later execute() of the
 * server whose runtime this is uses. Only the composition root calls it (src/main.ts, with the lists
 * of src/wiring.ts), so what is installed is written down in one place rather than left to which
 * modules happen to be imported.
 */
export function wireCommands(
  runtime: Runtime,
  wiring: { observers: readonly CommitObserver[]; uniqueConstraintErrors: UniqueConstraintErrors },
): void {
  const own = runtime.get(wiringOf);
  own.observers = [...wiring.observers];
  own.constraintErrors = new Map(Object.entries(wiring.uniqueConstraintErrors));
}

const MAX_ATTEMPTS = 4;

/**
 * Runs a command in one transaction: check → append events → update projections → commit. A sequence
 * conflict with a concurrent writer re-runs the command (it re-reads and re-checks); after a few
 * attempts the caller gets ABORTED. Unique violations of projection indexes become ALREADY_EXISTS
 * through the table wireCommands() installed.
 */
export async function execute<T>(ctx: Ctx, command: (work: UnitOfWork) => Promise<T>): Promise<T> {
  const { observers } = ctx.runtime.get(wiringOf);
  for (let attempt = 1; ; attempt++) {
    try {
      let appended: { types: ReadonlySet<string>; work: UnitOfWork } | undefined;
      const result = await ctx.db.transaction(async (tx) => {
        const work = new UnitOfWork(tx as unknown as Db, ctx);
        const result = await command(work);
        await work.flush();
        if (work.appendedTypes.size) {
          appended = { types: work.appendedTypes, work };
          for (const o of observers) await o.beforeCommit(work, appended.types);
        }
        return result;
      });
      if (appended) for (const o of observers) o.afterCommit(appended.types, appended.work);
      return result;
    } catch (err) {
      const violation = uniqueViolation(err);
      // A deadlock (two transactions locking the same rows in another order, e.g. a sign-in's finish and
      // a code check on one session) or a serialization failure aborts one of them: run it again, like a
      // sequence conflict, instead of failing the request.
      if (violation === 'events_aggregate_sequence_uq' || retryableState(err)) {
        if (attempt < MAX_ATTEMPTS) {
          await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
          continue;
        }
        throw aborted('Errors.Command.Conflict', 'the resource was changed concurrently; retry the request');
      }
      if (violation) throw constraintError(ctx.runtime, violation);
      throw err;
    }
  }
}

export function constraintError(runtime: Runtime, constraint: string): DomainError {
  const known = runtime.get(wiringOf).constraintErrors.get(constraint);
  return known?.() ?? alreadyExists('Errors.AlreadyExists', 'the resource already exists');
}

/** Whether PostgreSQL aborted the transaction for a conflict that a new attempt resolves (40P01, 40001). */
const retryableState = (err: unknown) => sqlErrorIn(err, (code) => code === '40P01' || code === '40001') !== undefined;

/** The name of the unique constraint a database error violated, for postgres.js and PGlite alike. */
export function uniqueViolation(err: unknown): string | undefined {
  const e = sqlErrorIn(err, (code) => code === '23505');
  return e && (e.constraint_name ?? e.constraint ?? 'unknown');
}
