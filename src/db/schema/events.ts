import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The append-only event store. `position` orders all events of the installation; `sequence` is gapless
 * per aggregate and the unique index on (aggregate_type, aggregate_id, sequence) is what detects two
 * writers changing one aggregate at once.
 */
export const events = pgTable(
  'events',
  {
    position: bigserial('position', { mode: 'number' }).primaryKey(),
    instanceId: text('instance_id').notNull(),
    aggregateType: text('aggregate_type').notNull(),
    aggregateId: text('aggregate_id').notNull(),
    sequence: integer('sequence').notNull(),
    eventType: text('event_type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    editorUserId: text('editor_user_id').notNull().default(''),
    editorService: text('editor_service').notNull().default(''),
    resourceOwner: text('resource_owner').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('events_aggregate_sequence_uq').on(t.aggregateType, t.aggregateId, t.sequence),
    index('events_aggregate_id_idx').on(t.aggregateId, t.position),
    index('events_type_idx').on(t.eventType, t.position),
    index('events_owner_idx').on(t.resourceOwner, t.position),
    index('events_editor_idx').on(t.editorUserId, t.position),
    index('events_created_idx').on(t.createdAt),
  ],
);
