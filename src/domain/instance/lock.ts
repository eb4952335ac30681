import { eq } from 'drizzle-orm';
import { instances } from '../../db/schema/index';
import type { UnitOfWork } from '../execute';

/**
 * For a command that records events on the instance: locks the instance row, so such commands run one
 * after the other instead of failing on the event sequence, then reads the sequence.
 */
export async function lockInstance(work: UnitOfWork): Promise<void> {
  await work.tx.select({ id: instances.id }).from(instances).where(eq(instances.id, work.ctx.instanceId)).for('update');
  await work.load('instance', work.ctx.instanceId);
}
