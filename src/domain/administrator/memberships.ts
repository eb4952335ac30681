import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { administrators } from '../../db/schema/index';
import type { Membership } from '../../authz/principal';

/** A user's administrator memberships: what their principal may do, and what `Principal.covers` compares. */
export async function membershipsOf(db: Db, userId: string): Promise<Membership[]> {
  const rows = await db
    .select({
      resourceType: administrators.resourceType,
      resourceId: administrators.resourceId,
      resourceOwner: administrators.resourceOwner,
      roles: administrators.roles,
    })
    .from(administrators)
    .where(eq(administrators.userId, userId));
  return rows as Membership[];
}
