import type { Permission } from '../../authz/roles';
import type { Principal } from '../../authz/principal';
import type { Db } from '../../db/client';
import { orgs } from '../../db/schema/index';
import { invalidArgument, notFound, permissionDenied } from '../errors';
import type { UnitOfWork } from '../execute';
import { type RowLock, findNotRemoved } from '../find-not-removed';

export type Org = typeof orgs.$inferSelect;

const orgNotFound = () => notFound('Errors.Org.NotFound', 'organization not found');

/** An organization that is not deleted, or undefined. */
export function findOrg(db: Db, id: string, lock?: RowLock): Promise<Org | undefined> {
  return findNotRemoved(db, orgs, id, lock);
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
