import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export const projects = pgTable(
  'projects',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    name: text('name').notNull(),
    /** ACTIVE | INACTIVE | REMOVED */
    state: text('state').notNull().default('ACTIVE'),
    projectRoleAssertion: boolean('project_role_assertion').notNull().default(false),
    authorizationRequired: boolean('authorization_required').notNull().default(false),
    projectAccessRequired: boolean('project_access_required').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('projects_org_idx').on(t.orgId, t.id), index('projects_name_idx').on(t.name)],
);

export const projectRoles = pgTable(
  'project_roles',
  {
    projectId: text('project_id').notNull(),
    key: text('key').notNull(),
    displayName: text('display_name').notNull(),
    group: text('group').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] })],
);

/** A project granted by its owning organization to another organization, with a subset of its roles. */
export const projectGrants = pgTable(
  'project_grants',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id').notNull(),
    /** the organization that owns the project */
    orgId: text('org_id').notNull(),
    grantedOrgId: text('granted_org_id').notNull(),
    roleKeys: text('role_keys').array().notNull().default(sql`'{}'::text[]`),
    /** ACTIVE | INACTIVE | REMOVED */
    state: text('state').notNull().default('ACTIVE'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('project_grants_project_org_uq').on(t.projectId, t.grantedOrgId).where(sql`${t.state} <> 'REMOVED'`),
    index('project_grants_granted_org_idx').on(t.grantedOrgId),
  ],
);

/**
 * A user's roles on a project (for the roles claims), given by the project's organization or by an
 * organization the project is granted to (`orgId` is the organization that gave it).
 */
export const authorizations = pgTable(
  'authorizations',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    projectId: text('project_id').notNull(),
    orgId: text('org_id').notNull(),
    projectGrantId: text('project_grant_id'),
    roleKeys: text('role_keys').array().notNull().default(sql`'{}'::text[]`),
    /** ACTIVE | INACTIVE | REMOVED */
    state: text('state').notNull().default('ACTIVE'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    changedAt: timestamp('changed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('authorizations_user_project_org_uq')
      .on(t.userId, t.projectId, t.orgId)
      .where(sql`${t.state} <> 'REMOVED'`),
    index('authorizations_project_idx').on(t.projectId),
  ],
);
