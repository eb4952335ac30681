import { and, eq, max } from 'drizzle-orm';
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
