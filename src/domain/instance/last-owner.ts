import { and, eq, sql } from 'drizzle-orm';
import { administrators, orgs, users } from '../../db/schema/index';
import { failedPrecondition } from '../errors';
import type { UnitOfWork } from '../execute';
import { lockInstance } from './lock';

/**
 * The instance always keeps an owner: a user who holds IAM_OWNER on it and can still call the API
 * (the user and its organization ACTIVE). Without one nobody can grant the role again, and only
 * `portcullis admin recover` with access to the database gives the instance back. Every command that
 * can take the role away, or take its holder out of reach, asks here first.
 */
export interface OwnerLoss {
  /** users that lose the role or stop being able to use it */
  userIds?: string[];
  /** an organization whose users all stop being able to use it */
  orgId?: string;
}

/**
 * Refuses the change when it would leave no owner. It locks the instance row first, so two commands
 * that each remove one of the last two owners run one after the other and the second one sees the
 * first: it cannot succeed as well.
 */
export async function refuseLosingLastOwner(work: UnitOfWork, loss: OwnerLoss, consequence: string): Promise<void> {
  await lockInstance(work);
  const owners = await work.tx
    .select({ userId: administrators.userId, orgId: users.orgId })
    .from(administrators)
    .innerJoin(users, eq(users.id, administrators.userId))
    .innerJoin(orgs, eq(orgs.id, users.orgId))
    .where(
      and(
        eq(administrators.resourceType, 'INSTANCE'),
        eq(administrators.resourceId, work.ctx.instanceId),
        sql`'IAM_OWNER' = any(${administrators.roles})`,
        eq(users.state, 'ACTIVE'),
        eq(orgs.state, 'ACTIVE'),
      ),
    );
  const lost = owners.filter((o) => loss.userIds?.includes(o.userId) || o.orgId === loss.orgId);
  if (lost.length === 0 || lost.length < owners.length) return;
  throw failedPrecondition(
    'Errors.Instance.LastOwner',
    `the last instance owner (IAM_OWNER) ${consequence}: make another user IAM_OWNER of the instance first, ` +
      'or nobody could administer the instance any more',
  );
}
