import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { instanceDomains, instances } from '../../db/schema/index';
import type { Ctx } from '../context';
import { notFound } from '../errors';
import { requireInstancePermission } from './permission';
import { type InstanceSettings, getInstanceSettings } from './settings';

export type Instance = typeof instances.$inferSelect;

/** The installation's instance, or undefined before the first start has bootstrapped it. */
export async function findInstance(db: Db): Promise<Instance | undefined> {
  const [row] = await db.select().from(instances).limit(1);
  return row;
}

/** GetInstance: the instance and its domains, for a caller with iam.read on the instance. */
export async function getInstance(ctx: Ctx): Promise<Instance & { domains: string[] }> {
  requireInstancePermission(ctx.principal, 'iam.read');
  const [row] = await ctx.db.select().from(instances).where(eq(instances.id, ctx.instanceId));
  if (!row) throw notFound('Errors.Instance.NotFound', 'instance not found');
  const domains = await ctx.db
    .select({ domain: instanceDomains.domain })
    .from(instanceDomains)
    .where(eq(instanceDomains.instanceId, row.id));
  return { ...row, domains: domains.map((d) => d.domain) };
}

/** GetInstanceSettings: the instance's settings, for a caller with iam.read on the instance. */
export function getInstanceSettingsOf(ctx: Ctx): Promise<InstanceSettings> {
  requireInstancePermission(ctx.principal, 'iam.read');
  return getInstanceSettings(ctx.db, ctx.instanceId);
}
