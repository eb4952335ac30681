import { and, eq, ne } from 'drizzle-orm';
import type { Permission } from '../../authz/roles';
import type { Principal } from '../../authz/principal';
import type { Db } from '../../db/client';
import { orgs } from '../../db/schema/index';
import { invalidArgument, notFound, permissionDenied } from '../errors';
import type { UnitOfWork } from '../execute';

export type Org = typeof orgs.$inferSelect;

export const orgNotFound = () => notFound('Errors.Org.NotFound', 'organization not found');

/**
 * Row lock a command takes on the organization: `share` while it adds something that belongs to it
 * (so a concurrent delete waits and then sees it), `update` while it changes or deletes the row
 * itself. Without a lock for queries.
 */
export type RowLock = 'share' | 'update' | undefined;

/** An organization that is not deleted, or undefined. */
export async function findOrg(db: Db, id: string, lock?: RowLock): Promise<Org | undefined> {
  const q = db
    .select()
    .from(orgs)
    .where(and(eq(orgs.id, id), ne(orgs.state, 'REMOVED')));
  const [row] = lock ? await q.for(lock) : await q;
  return row;
}

/**
 * Loads an organization for a caller who needs `perm` on it. A caller who may not even read it learns
 * nothing (NOT_FOUND); one who may read it but not do this gets PERMISSION_DENIED.
 */
export async function orgFor(db: Db, principal: Principal, id: string, perm: Permission, lock?: RowLock): Promise<Org> {
  if (!id) throw invalidArgument('Errors.Invalid.organization_id', 'organization_id is required');
  const org = await findOrg(db, id, lock);
  if (!org || !principal.canOrg('org.read', id)) throw orgNotFound();
  if (!principal.canOrg(perm, id)) throw permissionDenied(`needs ${perm} on the organization`);
  return org;
}

/**
 * For a command that records events on the organization: locks its row first, so concurrent commands
 * on it run one after the other, then reads its event sequence.
 */
export async function orgForChange(work: UnitOfWork, id: string, perm: Permission): Promise<Org> {
  const org = await orgFor(work.tx, work.ctx.principal, id, perm, 'update');
  await work.load('org', id);
  return org;
}
