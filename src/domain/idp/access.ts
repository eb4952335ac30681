import { and, eq, isNull } from 'drizzle-orm';
import type { Principal } from '../../authz/principal';
import type { Db } from '../../db/client';
import { identityProviders } from '../../db/schema/index';
import { notFound, permissionDenied } from '../errors';
import { requireInstancePermission } from '../instance/permission';

export type ProviderRow = typeof identityProviders.$inferSelect;

export const providerNotFound = () => notFound('Errors.IdP.NotFound', 'identity provider not found');

/**
 * Who may manage a provider: the instance's need `iam.write` (`iam.read` to read), an organization's
 * `org.write` on it (`org.read`). A caller who may not read it learns nothing (NOT_FOUND).
 */
export function requireProviderPermission(principal: Principal, orgId: string | null, write: boolean): void {
  if (!orgId) {
    requireInstancePermission(principal, write ? 'iam.write' : 'iam.read');
    return;
  }
  if (!principal.canOrg('org.read', orgId)) throw providerNotFound();
  if (write && !principal.canOrg('org.write', orgId)) throw permissionDenied('needs org.write on the organization');
}

/** A provider that is not removed, or undefined. */
export async function findProvider(db: Db, id: string, lock?: 'update'): Promise<ProviderRow | undefined> {
  const q = db
    .select()
    .from(identityProviders)
    .where(and(eq(identityProviders.id, id), isNull(identityProviders.removedAt)));
  const [row] = await (lock ? q.for(lock) : q);
  return row;
}

/** Loads a provider for a caller who needs to read (or change) it. */
export async function providerFor(db: Db, principal: Principal, id: string, write: boolean, lock?: 'update') {
  const row = id ? await findProvider(db, id, lock) : undefined;
  if (!row) throw providerNotFound();
  if (!row.orgId && !principal.canInstance('iam.read')) throw providerNotFound();
  requireProviderPermission(principal, row.orgId, write);
  return row;
}
