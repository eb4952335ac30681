import { type AnyColumn, type SQL, and, eq, gt, gte, inArray, lt, lte, sql } from 'drizzle-orm';
import { queryRows } from '../../db/client';
import { events, users } from '../../db/schema/index';
import type { Ctx } from '../context';
import { requireEventSearch } from './read-access';

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
  /** the payload as JSON text, as the database renders it (answers embed it without re-parsing) */
  payloadJson: string;
  editorUserId: string;
  editorService: string;
  /** display name of a human editor, name of a machine editor */
  editorDisplayName: string | null;
  /** ISO 8601 in UTC with milliseconds */
  createdAt: string;
}

/**
 * Searches the event store (permission `events.read` on the instance, or on the organization `resourceOwner`
 * names), newest first unless `asc`.
 *
 * Each search walks ONE index whose last column is the position, so it reads about `limit` entries
 * however large the store is: aggregate id, else editor, else resource owner, else event type
 * (indexes in db/schema/events.ts). The driving column is compared as a range (`>= v and <= v`) and
 * sorted on: with a plain `= v` PostgreSQL drops the column from the sort and may walk the primary
 * key backwards instead, filtering — fast for common types, a full scan for rare or old ones. Several
 * event types without another driving filter run one such walk per type, merged here.
 */
export async function searchEvents(ctx: Ctx, f: EventFilter): Promise<EventRecord[]> {
  requireEventSearch(ctx.principal, f.resourceOwner);
  const limit = Math.min(f.limit || MAX_EVENTS, MAX_EVENTS);
  const types = [...new Set(f.eventTypes ?? [])];
  const driver: [AnyColumn, string] | undefined = f.aggregateId
    ? [events.aggregateId, f.aggregateId]
    : f.editorUserId
      ? [events.editorUserId, f.editorUserId]
      : f.resourceOwner
        ? [events.resourceOwner, f.resourceOwner]
        : undefined;
  if (driver || types.length <= 1)
    return walk(ctx, f, limit, driver ?? (types.length === 1 ? [events.eventType, types[0]] : undefined), types);
  const perType = await Promise.all(types.map((t) => walk(ctx, f, limit, [events.eventType, t], [t])));
  return perType
    .flat()
    .sort((a, b) => (f.asc ? a.position - b.position : b.position - a.position))
    .slice(0, limit);
}

/** Payload keys that hold credential material, removed for callers without `iam.write`. */
const REDACTED = sql.raw(`array['passwordHash','secretHash','otpSecret']::text[]`);

async function walk(
  ctx: Ctx,
  f: EventFilter,
  limit: number,
  driver: [AnyColumn, string] | undefined,
  types: string[],
): Promise<EventRecord[]> {
  const where: SQL[] = [eq(events.instanceId, ctx.instanceId)];
  if (driver) where.push(sql`${driver[0]} >= ${driver[1]} and ${driver[0]} <= ${driver[1]}`);
  if (types.length && driver?.[0] !== events.eventType)
    where.push(types.length === 1 ? eq(events.eventType, types[0]) : inArray(events.eventType, types));
  if (f.aggregateTypes?.length) {
    where.push(
      f.aggregateTypes.length === 1
        ? eq(events.aggregateType, f.aggregateTypes[0])
        : inArray(events.aggregateType, f.aggregateTypes),
    );
  }
  if (f.aggregateId && driver?.[0] !== events.aggregateId) where.push(eq(events.aggregateId, f.aggregateId));
  if (f.editorUserId && driver?.[0] !== events.editorUserId) where.push(eq(events.editorUserId, f.editorUserId));
  if (f.resourceOwner && driver?.[0] !== events.resourceOwner) where.push(eq(events.resourceOwner, f.resourceOwner));
  if (f.sequence) where.push(f.asc ? gt(events.sequence, f.sequence) : lt(events.sequence, f.sequence));
  if (f.position) where.push(f.asc ? gt(events.position, f.position) : lt(events.position, f.position));
  if (f.createdSince) where.push(gte(events.createdAt, f.createdSince));
  if (f.createdUntil) where.push(lte(events.createdAt, f.createdUntil));
  // Password hashes are secrets of their own (offline guessing): only instance writers, who may
  // re-import them, see them; read-only roles get the payload without them.
  const payload = ctx.principal.canInstance('iam.write')
    ? sql`${events.payload}::text`
    : sql`(${events.payload} - ${REDACTED})::text`;
  const dir = sql.raw(f.asc ? 'asc' : 'desc');
  const order = driver ? sql`${driver[0]} ${dir}, ${events.position} ${dir}` : sql`${events.position} ${dir}`;
  // A plain statement rather than the query builder: for a thousand rows the per-field mapping of the
  // builder costs about as much CPU as the whole rest of the request.
  const rows = await queryRows<any>(
    ctx.db,
    sql`
    select ${events.position}::text as position, ${events.sequence} as sequence, ${events.eventType} as event_type,
      ${events.aggregateType} as aggregate_type, ${events.aggregateId} as aggregate_id,
      ${events.resourceOwner} as resource_owner,
      ${payload} as payload, ${events.editorUserId} as editor_user_id, ${events.editorService} as editor_service,
      coalesce(${users.displayName}, ${users.machineName}) as editor_display_name,
      to_char(${events.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at
    from ${events} left join ${users} on ${users.id} = ${events.editorUserId}
    where ${and(...where)}
    order by ${order}
    limit ${limit}`,
  );
  return rows.map((r) => ({
    position: Number(r.position),
    sequence: Number(r.sequence),
    eventType: r.event_type,
    aggregateType: r.aggregate_type,
    aggregateId: r.aggregate_id,
    resourceOwner: r.resource_owner,
    payloadJson: r.payload,
    editorUserId: r.editor_user_id,
    editorService: r.editor_service,
    editorDisplayName: r.editor_display_name,
    createdAt: r.created_at,
  }));
}
