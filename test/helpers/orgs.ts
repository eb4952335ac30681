import { DomainValidationType, OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { execute } from '../../src/domain/execute';
import { addOrg as addOrgIn } from '../../src/domain/org/commands';
import { verifyDomain } from '../../src/domain/org/domain-validation';
import { systemCtx } from './context';
import type { TestServer } from './server';

/** An organization with no administrators, made as the instance would make it. */
export async function addOrg(server: TestServer, name: string): Promise<{ id: string; primaryDomain: string }> {
  const { id, primaryDomain } = await execute(systemCtx(server), (work) =>
    addOrgIn(work, { name, instanceDomain: 'localhost' }),
  );
  return { id, primaryDomain };
}

/**
 * Verifies a domain the organization has added, as its administrator would: a validation token
 * through the API (with `token`, default the admin PAT), then the DNS check answered by a TXT lookup
 * that holds that token.
 */
export async function verifyOrgDomain(server: TestServer, orgId: string, domain: string, token?: string) {
  const { token: txt } = await server
    .client(OrganizationService, { token })
    .generateOrganizationDomainValidation({ organizationId: orgId, domain, type: DomainValidationType.DNS });
  return verifyDomain(systemCtx(server), { orgId, domain }, async () => [txt]);
}
