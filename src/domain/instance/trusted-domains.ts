import { and, eq } from 'drizzle-orm';
import { instanceDomains } from '../../db/schema/index';
import type { Ctx } from '../context';
import { alreadyExists, failedPrecondition } from '../errors';
import { execute, type UniqueConstraintErrors } from '../execute';
import { type ListResult, type PageRequest, page } from '../list/page';
import { listRows } from '../list/query';
import { lockInstance } from './lock';
import { requireDomain } from './validate';
import { requireInstancePermission } from './permission';

/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const trustedDomainUniqueConstraints: UniqueConstraintErrors = {
  instance_domains_pkey: () =>
    alreadyExists('Errors.Instance.Domain.AlreadyExists', 'the domain is already a domain of the instance'),
};

export type InstanceDomain = typeof instanceDomains.$inferSelect;

export async function listInstanceDomains(ctx: Ctx, req: { page?: PageRequest }): Promise<ListResult<InstanceDomain>> {
  requireInstancePermission(ctx.principal, 'iam.read');
  const where = eq(instanceDomains.instanceId, ctx.instanceId);
  return listRows(ctx.db, instanceDomains, where, page(req.page), instanceDomains.domain);
}

/** Adds a domain under which the instance is also reached. */
export async function addTrustedDomain(ctx: Ctx, input: { domain: string }): Promise<{ createdAt: Date }> {
  requireInstancePermission(ctx.principal, 'iam.write');
  const domain = requireDomain('domain', input.domain);
  return execute(ctx, async (work) => {
    await lockInstance(work);
    const [row] = await work.tx
      .insert(instanceDomains)
      .values({ domain, instanceId: ctx.instanceId, trusted: true })
      .returning({ createdAt: instanceDomains.createdAt });
    work.push({
      aggregateType: 'instance',
      aggregateId: ctx.instanceId,
      type: 'instance.domain.added',
      payload: { domain, trusted: true },
      resourceOwner: ctx.instanceId,
    });
    return { createdAt: row.createdAt };
  });
}

/** Removes a trusted domain; removing one that is not there succeeds, the generated one cannot go. */
export async function removeTrustedDomain(ctx: Ctx, input: { domain: string }): Promise<{ deletedAt: Date }> {
  requireInstancePermission(ctx.principal, 'iam.write');
  const domain = requireDomain('domain', input.domain);
  return execute(ctx, async (work) => {
    await lockInstance(work);
    const where = and(eq(instanceDomains.instanceId, ctx.instanceId), eq(instanceDomains.domain, domain));
    const [row] = await work.tx.select().from(instanceDomains).where(where);
    if (!row) return { deletedAt: new Date() };
    if (row.generated)
      throw failedPrecondition(
        'Errors.Instance.Domain.Generated',
        'the generated domain of the instance cannot be removed',
      );
    await work.tx.delete(instanceDomains).where(where);
    work.push({
      aggregateType: 'instance',
      aggregateId: ctx.instanceId,
      type: 'instance.domain.removed',
      payload: { domain },
      resourceOwner: ctx.instanceId,
    });
    return { deletedAt: new Date() };
  });
}
