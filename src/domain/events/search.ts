import { type SQL, and, asc, desc, eq, gt, gte, inArray, lt, lte } from 'drizzle-orm';
import { events, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { permissionDenied } from '../errors';

export const MAX_EVENTS = 1000;

export interface EventFilter {
  asc?: boolean;
  /** default and maximum MAX_EVENTS */
  limit?: number;
  eventTypes?: string[];
  aggregateId?: string;
  aggregateTypes?: string[];
  editorUserId?: string;
  resourceOwner?: string;
  /** per-aggregate sequence: events after it (ascending) or before it (descending) */
  sequence?: number;
  /** global position cursor for paging: events after it (ascending) or before it (descending) */
  position?: number;
  createdSince?: Date;
  createdUntil?: Date;
}

export interface EventRecord {
  position: number;
  sequence: number;
  eventType: string;
  aggregateType: string;
  aggregateId: string;
  resourceOwner: string;
  payload: Record<string, unknown>;
  editorUserId: string;
  editorService: string;
  editorDisplayName: string | null;
  createdAt: Date;
}

/**
 * Searches the event store (permission `events.read`, instance-wide). Every filter is answered by an
 * index whose last column is the position, so the database reads at most `limit` entries in order
 * (indexes in db/schema/events.ts).
 */
export async function searchEvents(ctx: Ctx, f: EventFilter): Promise<EventRecord[]> {
  if (!ctx.principal.canInstance('events.read')) throw permissionDenied('searching events needs the events.read permission');
  const limit = Math.min(f.limit || MAX_EVENTS, MAX_EVENTS);
  const where: SQL[] = [eq(events.instanceId, ctx.instanceId)];
  if (f.eventTypes?.length) where.push(f.eventTypes.length === 1 ? eq(events.eventType, f.eventTypes[0]) : inArray(events.eventType, f.eventTypes));
  if (f.aggregateTypes?.length) {
    where.push(f.aggregateTypes.length === 1 ? eq(events.aggregateType, f.aggregateTypes[0]) : inArray(events.aggregateType, f.aggregateTypes));
  }
  if (f.aggregateId) where.push(eq(events.aggregateId, f.aggregateId));
  if (f.editorUserId) where.push(eq(events.editorUserId, f.editorUserId));
  if (f.resourceOwner) where.push(eq(events.resourceOwner, f.resourceOwner));
  if (f.sequence) where.push(f.asc ? gt(events.sequence, f.sequence) : lt(events.sequence, f.sequence));
  if (f.position) where.push(f.asc ? gt(events.position, f.position) : lt(events.position, f.position));
  if (f.createdSince) where.push(gte(events.createdAt, f.createdSince));
  if (f.createdUntil) where.push(lte(events.createdAt, f.createdUntil));
  const found = await ctx.db
    .select({
      position: events.position,
      sequence: events.sequence,
      eventType: events.eventType,
      aggregateType: events.aggregateType,
      aggregateId: events.aggregateId,
      resourceOwner: events.resourceOwner,
      payload: events.payload,
      editorUserId: events.editorUserId,
      editorService: events.editorService,
      editorDisplayName: users.displayName,
      editorMachineName: users.machineName,
      createdAt: events.createdAt,
    })
    .from(events)
    .leftJoin(users, eq(users.id, events.editorUserId))
    .where(and(...where))
    .orderBy(f.asc ? asc(events.position) : desc(events.position))
    .limit(limit);
  return found.map(({ editorMachineName, ...e }) => ({ ...e, editorDisplayName: e.editorDisplayName ?? editorMachineName }));
}
