import { pgTable, primaryKey, text, timestamp, index } from 'drizzle-orm/pg-core';

/**
 * Memberships: a user's administrator roles on the instance, an organization or a project.
 * resource_type is INSTANCE | ORG | PROJECT; resource_id is the instance, org or project id.
 */
export const administrators = pgTable(
  'administrators',
  {
    userId: text('user_id').notNull(),
    resourceType: text('resource_type').notNull(),
    resourceId: text('resource_id').notNull(),
    /** the organization that owns the resource (for scoping lists) */
    resourceOwner: text('resource_owner').notNull(),
    roles: text('roles').array().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.resourceType, t.resourceId] }),
    index('administrators_resource_idx').on(t.resourceType, t.resourceId),
  ],
);
