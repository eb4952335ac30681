import { and, eq, ne } from 'drizzle-orm';
import { invalidatePrincipal } from '../../authz/authenticate';
import { users } from '../../db/schema/index';
import type { UnitOfWork } from '../execute';
import { invalidateMachineUser } from '../oidc/m2m/machines';

/**
 * The organization's state and primary domain are part of its users' cached principals and
 * machine-user entries (login names); commands that change them evict those in every replica.
 */
export async function invalidateOrgUsers(work: UnitOfWork, orgId: string): Promise<void> {
  const rows = await work.tx
    .select({ id: users.id, type: users.type })
    .from(users)
    .where(and(eq(users.orgId, orgId), ne(users.state, 'REMOVED')));
  for (const u of rows) {
    await invalidatePrincipal(work, u.id);
    if (u.type === 'MACHINE') await invalidateMachineUser(work, u.id);
  }
}
