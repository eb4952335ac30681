import { and, eq } from 'drizzle-orm';
import { orgDomains, orgs } from '../../db/schema/index';
import type { Ctx } from '../context';
import { alreadyExists, failedPrecondition, notFound } from '../errors';
import { execute, type UnitOfWork, type UniqueConstraintErrors } from '../execute';
import { requireDomain, requireId } from '../instance/validate';
import { orgForChange } from './access';
import { dropUnverifiedCopies, requireNotVerifiedElsewhere } from './domain-claim';

/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const orgDomainUniqueConstraints: UniqueConstraintErrors = {
  org_domains_org_id_domain_pk: () =>
    alreadyExists('Errors.Org.Domain.AlreadyExists', 'the organization already has this domain'),
};

const domainNotFound = () => notFound('Errors.Org.Domain.NotFound', 'the organization has no such domain');

/**
 * Adds a domain, unverified (domain-validation.ts verifies it). Another organization's unverified
 * copy does not stand in the way; one that verified the domain does (domain-claim.ts).
 */
export async function addOrganizationDomain(
  ctx: Ctx,
  input: { orgId: string; domain: string },
): Promise<{ createdAt: Date }> {
  requireId('organization_id', input.orgId);
  requireDomain('domain', input.domain);
  return execute(ctx, (work) => addOrganizationDomainIn(work, input));
}

/**
 * AddOrganizationDomain inside a running command. `verified` is only for the bulk import, which
 * carries over domains the previous system had verified (recorded as `org.domain.verified`).
 */
export async function addOrganizationDomainIn(
  work: UnitOfWork,
  input: { orgId: string; domain: string; verified?: boolean },
): Promise<{ createdAt: Date }> {
  const orgId = requireId('organization_id', input.orgId);
  const domain = requireDomain('domain', input.domain);
  await orgForChange(work, orgId, 'org.write');
  const isVerified = input.verified === true;
  await requireNotVerifiedElsewhere(work.tx, orgId, domain);
  const [row] = await work.tx
    .insert(orgDomains)
    .values({ orgId, domain, isVerified })
    .returning({ createdAt: orgDomains.createdAt });
  work.push({
    aggregateType: 'org',
    aggregateId: orgId,
    type: 'org.domain.added',
    payload: { domain },
    resourceOwner: orgId,
  });
  if (isVerified) {
    work.push({
      aggregateType: 'org',
      aggregateId: orgId,
      type: 'org.domain.verified',
      payload: { domain },
      resourceOwner: orgId,
    });
    await dropUnverifiedCopies(work, orgId, domain);
  }
  return { createdAt: row.createdAt };
}

export async function deleteOrganizationDomain(
  ctx: Ctx,
  input: { orgId: string; domain: string },
): Promise<{ deletedAt: Date }> {
  const orgId = requireId('organization_id', input.orgId);
  const domain = requireDomain('domain', input.domain);
  return execute(ctx, async (work) => {
    await orgForChange(work, orgId, 'org.write');
    const where = and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain));
    const [row] = await work.tx.select().from(orgDomains).where(where);
    if (!row) return { deletedAt: new Date() };
    if (row.isPrimary)
      throw failedPrecondition(
        'Errors.Org.Domain.Primary',
        'the primary domain cannot be removed; set another primary domain first',
      );
    if (row.generated)
      throw failedPrecondition('Errors.Org.Domain.Generated', 'the generated domain cannot be removed');
    await work.tx.delete(orgDomains).where(where);
    work.push({
      aggregateType: 'org',
      aggregateId: orgId,
      type: 'org.domain.removed',
      payload: { domain },
      resourceOwner: orgId,
    });
    return { deletedAt: new Date() };
  });
}

/**
 * Makes a verified domain of the organization primary; login names, `preferred_username` and role
 * claims follow it, so a domain nobody proved to control cannot be primary.
 */
export async function setPrimaryOrganizationDomain(
  ctx: Ctx,
  input: { orgId: string; domain: string },
): Promise<{ changedAt: Date }> {
  requireId('organization_id', input.orgId);
  requireDomain('domain', input.domain);
  return execute(ctx, (work) => setPrimaryOrganizationDomainIn(work, input));
}

/** SetPrimaryOrganizationDomain inside a running command (used by the bulk import). */
export async function setPrimaryOrganizationDomainIn(
  work: UnitOfWork,
  input: { orgId: string; domain: string },
): Promise<{ changedAt: Date }> {
  const orgId = requireId('organization_id', input.orgId);
  const domain = requireDomain('domain', input.domain);
  await orgForChange(work, orgId, 'org.write');
  const [row] = await work.tx
    .select()
    .from(orgDomains)
    .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain)));
  if (!row) throw domainNotFound();
  const changedAt = new Date();
  if (row.isPrimary) return { changedAt };
  if (!row.isVerified)
    throw failedPrecondition(
      'Errors.Org.Domain.NotVerified',
      'only a verified domain can be primary: verify it first (GenerateOrganizationDomainValidation, then ' +
        'VerifyOrganizationDomain)',
    );
  await work.tx.update(orgDomains).set({ isPrimary: false }).where(eq(orgDomains.orgId, orgId));
  await work.tx
    .update(orgDomains)
    .set({ isPrimary: true })
    .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.domain, domain)));
  await work.tx.update(orgs).set({ primaryDomain: domain, changedAt }).where(eq(orgs.id, orgId));
  work.push({
    aggregateType: 'org',
    aggregateId: orgId,
    type: 'org.domain.primary.set',
    payload: { domain },
    resourceOwner: orgId,
  });
  return { changedAt };
}
