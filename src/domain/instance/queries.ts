import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instanceDomains, instances } from '../../db/schema/index';
import { defineCache, invalidateAfterCommit } from '../cache';
import type { Ctx } from '../context';
import { notFound } from '../errors';
import type { UnitOfWork } from '../execute';
import { requireInstancePermission } from './permission';
import { type InstanceSettings, getInstanceSettings } from './settings';

export type Instance = typeof instances.$inferSelect;

/** The installation's instance, or undefined before the first start has bootstrapped it. */
export async function findInstance(db: Db): Promise<Instance | undefined> {
  const [row] = await db.select().from(instances).limit(1);
  return row;
}

/** What GetInstance answers: the instance's row and its domains. */
export type InstanceView = Instance & { domains: string[] };

// Read by every GetInstance, changed by a handful of commands: each instance event evicts it here and, by
// NOTIFY at commit, in every other process (src/domain/events/types/instance.ts declares `instance`).
const views = defineCache<InstanceView | undefined>('instance', { max: 16 });

/** Evicts the cached instance (row and domains) once the command's transaction commits. */
export function invalidateInstance(work: UnitOfWork, instanceId: string): Promise<void> {
  return invalidateAfterCommit(work, 'instance', instanceId);
}

/** GetInstance: the instance and its domains, for a caller with iam.read on the instance. */
export async function getInstance(ctx: Ctx): Promise<InstanceView> {
  requireInstancePermission(ctx.principal, 'iam.read');
  const view = await ctx.runtime.get(views).get(ctx.instanceId, () => readInstance(ctx.db, ctx.instanceId));
  if (!view) throw notFound('Errors.Instance.NotFound', 'instance not found');
  return view;
}

async function readInstance(db: Db, instanceId: string): Promise<InstanceView | undefined> {
  const [row] = await db.select().from(instances).where(eq(instances.id, instanceId));
  if (!row) return undefined;
  const domains = await db
    .select({ domain: instanceDomains.domain })
    .from(instanceDomains)
    .where(eq(instanceDomains.instanceId, row.id));
  return { ...row, domains: domains.map((d) => d.domain) };
}

/** GetInstanceSettings: the instance's settings, for a caller with iam.read on the instance. */
export function getInstanceSettingsOf(ctx: Ctx): Promise<InstanceSettings> {
  requireInstancePermission(ctx.principal, 'iam.read');
  return getInstanceSettings(ctx, ctx.instanceId);
}
