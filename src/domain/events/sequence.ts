import { and, eq, inArray, max } from 'drizzle-orm';
import { events } from '../../db/schema/index';
import type { Ctx } from '../context';

/**
 * The current sequence of an aggregate: v1 responses report it in `details.sequence`. Answered by
 * the unique (aggregate_type, aggregate_id, sequence) index.
 */
export async function aggregateSequence(ctx: Ctx, aggregateType: string, aggregateId: string): Promise<number> {
  const [row] = await ctx.db
    .select({ seq: max(events.sequence) })
    .from(events)
    .where(and(eq(events.aggregateType, aggregateType), eq(events.aggregateId, aggregateId)));
  return row?.seq ?? 0;
}

/** The current sequences of many aggregates of one type in one query (for v1 list answers). */
export async function aggregateSequences(
  ctx: Ctx,
  aggregateType: string,
  aggregateIds: string[],
): Promise<Map<string, number>> {
  if (aggregateIds.length === 0) return new Map();
  const rows = await ctx.db
    .select({ id: events.aggregateId, seq: max(events.sequence) })
    .from(events)
    .where(and(eq(events.aggregateType, aggregateType), inArray(events.aggregateId, aggregateIds)))
    .groupBy(events.aggregateId);
  return new Map(rows.map((r) => [r.id, r.seq ?? 0]));
}
