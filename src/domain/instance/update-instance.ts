import { eq } from 'drizzle-orm';
import { instances } from '../../db/schema/index';
import type { Ctx } from '../context';
import { execute } from '../execute';
import { lockInstance } from './lock';
import { requireText } from './validate';
import { requireInstancePermission } from './permission';

/** Renames the instance. */
export async function updateInstance(ctx: Ctx, input: { name: string }): Promise<{ changedAt: Date }> {
  requireInstancePermission(ctx.principal, 'iam.write');
  const name = requireText('instance_name', input.name);
  return execute(ctx, async (work) => {
    await lockInstance(work);
    const changedAt = new Date();
    await work.tx.update(instances).set({ name, changedAt }).where(eq(instances.id, ctx.instanceId));
    work.push({
      aggregateType: 'instance',
      aggregateId: ctx.instanceId,
      type: 'instance.changed',
      payload: { name },
      resourceOwner: ctx.instanceId,
    });
    return { changedAt };
  });
}
