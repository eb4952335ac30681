import { orgDomains, orgs } from '../../db/schema/index';
import { alreadyExists } from '../errors';
import { type UnitOfWork, type UniqueConstraintErrors } from '../execute';
import { newId } from '../ids';
import { dropUnverifiedCopies, verifiedElsewhere } from './domain-claim';
import { generatedOrgDomain } from './domain-name';

/** Which error each unique index written here stands for; src/wiring.ts hands it to execute(). */
export const orgUniqueConstraints: UniqueConstraintErrors = {
  orgs_name_uq: () => alreadyExists('Errors.Org.AlreadyExisting', 'an organization with this name already exists'),
  orgs_pkey: () => alreadyExists('Errors.Org.AlreadyExisting', 'an organization with this id already exists'),
  // two organizations verifying the same domain at once: the second one's commit
  org_domains_verified_domain_uq: verifiedElsewhere,
};

export interface AddOrgInput {
  id?: string;
  name: string;
  instanceDomain: string;
}

/** Adds an organization with its generated primary domain. */
export async function addOrg(
  work: UnitOfWork,
  input: AddOrgInput,
): Promise<{ id: string; primaryDomain: string; createdAt: Date }> {
  const id = input.id ?? newId();
  const primaryDomain = generatedOrgDomain(input.name, input.instanceDomain);
  work.created('org', id);
  const [row] = await work.tx
    .insert(orgs)
    .values({ id, name: input.name, primaryDomain })
    .returning({ createdAt: orgs.createdAt });
  await work.tx
    .insert(orgDomains)
    .values({ orgId: id, domain: primaryDomain, isPrimary: true, isVerified: true, generated: true });
  work.push({
    aggregateType: 'org',
    aggregateId: id,
    type: 'org.added',
    payload: { name: input.name },
    resourceOwner: id,
  });
  work.push({
    aggregateType: 'org',
    aggregateId: id,
    type: 'org.domain.added',
    payload: { domain: primaryDomain, generated: true },
    resourceOwner: id,
  });
  work.push({
    aggregateType: 'org',
    aggregateId: id,
    type: 'org.domain.primary.set',
    payload: { domain: primaryDomain },
    resourceOwner: id,
  });
  // another organization may have added the name before this organization existed
  await dropUnverifiedCopies(work, id, primaryDomain);
  return { id, primaryDomain, createdAt: row.createdAt };
}
