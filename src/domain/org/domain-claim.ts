import { and, eq, ne } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { orgDomains, orgs } from '../../db/schema/index';
import { alreadyExists } from '../errors';
import type { UnitOfWork } from '../execute';

// Only a verified domain is unique instance-wide (the partial unique index org_domains_verified_domain_uq):
// any organization may add a domain unverified, so adding one first cannot keep its real owner out,
// and whichever organization proves it controls the domain owns it. Until then an unverified domain
// carries nothing: it is no login name domain and cannot become primary (domains.ts).

/** The answer when another organization has verified the domain. */
export const verifiedElsewhere = () =>
  alreadyExists('Errors.Org.Domain.AlreadyExists', 'the domain is verified by another organization');

/** Refuses when an organization other than `orgId` has verified the domain. */
export async function requireNotVerifiedElsewhere(db: Db, orgId: string, domain: string): Promise<void> {
  const [taken] = await db
    .select({ orgId: orgDomains.orgId })
    .from(orgDomains)
    .where(and(eq(orgDomains.domain, domain), eq(orgDomains.isVerified, true), ne(orgDomains.orgId, orgId)))
    .limit(1);
  if (taken) throw verifiedElsewhere();
}

/**
 * The domain has just become verified for `orgId` (DNS validation, the bulk import, a new
 * organization's generated domain): every other organization's unverified copy is removed, each with
 * its `org.domain.removed` event. A copy that was primary (data from before this rule) gives way to
 * that organization's generated domain.
 */
export async function dropUnverifiedCopies(work: UnitOfWork, orgId: string, domain: string): Promise<void> {
  const copies = await work.tx
    .delete(orgDomains)
    .where(and(eq(orgDomains.domain, domain), eq(orgDomains.isVerified, false), ne(orgDomains.orgId, orgId)))
    .returning({ orgId: orgDomains.orgId, isPrimary: orgDomains.isPrimary });
  for (const copy of copies) {
    work.push({
      aggregateType: 'org',
      aggregateId: copy.orgId,
      type: 'org.domain.removed',
      payload: { domain, reason: 'verified_elsewhere' },
      resourceOwner: copy.orgId,
    });
    if (copy.isPrimary) await primaryBackToGenerated(work, copy.orgId);
  }
}

async function primaryBackToGenerated(work: UnitOfWork, orgId: string): Promise<void> {
  const [generated] = await work.tx
    .update(orgDomains)
    .set({ isPrimary: true })
    .where(and(eq(orgDomains.orgId, orgId), eq(orgDomains.generated, true)))
    .returning({ domain: orgDomains.domain });
  if (!generated) return;
  await work.tx.update(orgs).set({ primaryDomain: generated.domain, changedAt: new Date() }).where(eq(orgs.id, orgId));
  work.push({
    aggregateType: 'org',
    aggregateId: orgId,
    type: 'org.domain.primary.set',
    payload: { domain: generated.domain },
    resourceOwner: orgId,
  });
}
