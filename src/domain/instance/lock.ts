import { eq } from 'drizzle-orm';
import { instances } from '../../db/schema/index';
import type { Scope } from '../execute';

/**
 * For a command that records events on the instance: locks the instance row, so such commands run one
 * after the other instead of failing on the event sequence, then reads the sequence.
 */
export async function lockInstance(scope: Scope): Promise<void> {
  await scope.tx
    .select({ id: instances.id })
    .from(instances)
    .where(eq(instances.id, scope.ctx.instanceId))
    .for('update');
  await scope.load('instance', scope.ctx.instanceId);
}
