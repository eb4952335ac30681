import { Code } from '@connectrpc/connect';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainValidationType, OrganizationService } from '../../gen/portcullis/org/v2/org_service_pb';
import { orgDomains, orgs } from '../../src/db/schema/index';
import { eventsSince, lastPosition } from '../helpers/events';
import { addMachineWithToken } from '../helpers/machines';
import { verifyOrgDomain } from '../helpers/orgs';
import { startTestServer, type TestServer } from '../helpers/server';

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) => e as { code: Code; rawMessage: string },
  );

/**
 * An organization owner adds a domain someone else owns, before the owner does, and tries to make it
 * its primary domain (which login names, `preferred_username` and role claims carry).
 */
describe('domain squatting: an unverified domain keeps nobody out and carries nothing', () => {
  let server: TestServer;
  let squatter: { orgId: string; token: string };
  let owner: { orgId: string; token: string };
  const api = (as: { token: string }) => server.client(OrganizationService, { token: as.token });
  const domainsOf = async (as: { orgId: string; token: string }) =>
    (await api(as).listOrganizationDomains({ organizationId: as.orgId })).domains.map((d) => d.domain);

  beforeAll(async () => {
    server = await startTestServer();
    const admin = server.client(OrganizationService);
    const orgOwner = async (name: string) => {
      const { organizationId } = await admin.createOrganization({ name });
      const { token } = await addMachineWithToken(server, organizationId, { roles: ['ORG_OWNER'] });
      return { orgId: organizationId, token };
    };
    squatter = await orgOwner('Squatter');
    owner = await orgOwner('BigCorp');
  });
  afterAll(() => server?.stop());

  it('the squatter adds bigcorp.com first; the real owner can still add it', async () => {
    await api(squatter).addOrganizationDomain({ organizationId: squatter.orgId, domain: 'bigcorp.com' });
    await api(owner).addOrganizationDomain({ organizationId: owner.orgId, domain: 'bigcorp.com' });
    expect(await domainsOf(squatter)).toContain('bigcorp.com');
    expect(await domainsOf(owner)).toContain('bigcorp.com');
  });

  it('the squatter cannot make the unverified domain primary, and is told why', async () => {
    const err = await failureOf(
      api(squatter).setPrimaryOrganizationDomain({ organizationId: squatter.orgId, domain: 'bigcorp.com' }),
    );
    expect(err?.code).toBe(Code.FailedPrecondition);
    expect(err?.rawMessage).toMatch(/only a verified domain can be primary/);
    const { organization } = await api(squatter).getOrganization({ organizationId: squatter.orgId });
    expect(organization?.primaryDomain).toBe('squatter.localhost');
  });

  it('the real owner verifies it: the squatter copy is gone (with its event) and cannot come back', async () => {
    // the squatter may ask for a token, which it cannot put into the owner's DNS
    const request = { organizationId: squatter.orgId, domain: 'bigcorp.com', type: DomainValidationType.DNS };
    expect((await api(squatter).generateOrganizationDomainValidation(request)).token).toMatch(/^pc-/);
    const position = await lastPosition(server);
    await verifyOrgDomain(server, owner.orgId, 'bigcorp.com', owner.token);
    expect(await domainsOf(squatter)).not.toContain('bigcorp.com');
    expect((await failureOf(api(squatter).verifyOrganizationDomain(request)))?.code).toBe(Code.NotFound);
    const removed = await eventsSince(server, position, 'org.domain.removed');
    expect(removed.map((e) => [e.aggregateId, e.payload])).toEqual([
      [squatter.orgId, { domain: 'bigcorp.com', reason: 'verified_elsewhere' }],
    ]);
    const verified = (await api(owner).listOrganizationDomains({ organizationId: owner.orgId })).domains.find(
      (d) => d.domain === 'bigcorp.com',
    );
    expect(verified?.isVerified).toBe(true);
    // a verified domain is unique: adding it again is refused
    const again = await failureOf(
      api(squatter).addOrganizationDomain({ organizationId: squatter.orgId, domain: 'bigcorp.com' }),
    );
    expect(again?.code).toBe(Code.AlreadyExists);
    expect(again?.rawMessage).toMatch(/verified by another organization/);
    // the owner makes it primary
    await api(owner).setPrimaryOrganizationDomain({ organizationId: owner.orgId, domain: 'bigcorp.com' });
    expect((await api(owner).getOrganization({ organizationId: owner.orgId })).organization?.primaryDomain).toBe(
      'bigcorp.com',
    );
  });

  it('an unverified primary domain from before this rule gives way to the generated one', async () => {
    await api(squatter).addOrganizationDomain({ organizationId: squatter.orgId, domain: 'legacy.example' });
    await api(owner).addOrganizationDomain({ organizationId: owner.orgId, domain: 'legacy.example' });
    // what an older release allowed: the unverified domain made primary (no API does this any more)
    const db = server.app.database.db;
    await db.transaction(async (tx) => {
      await tx.update(orgDomains).set({ isPrimary: false }).where(eq(orgDomains.orgId, squatter.orgId));
      await tx
        .update(orgDomains)
        .set({ isPrimary: true })
        .where(and(eq(orgDomains.orgId, squatter.orgId), eq(orgDomains.domain, 'legacy.example')));
      await tx.update(orgs).set({ primaryDomain: 'legacy.example' }).where(eq(orgs.id, squatter.orgId));
    });
    await verifyOrgDomain(server, owner.orgId, 'legacy.example', owner.token);
    const { organization } = await api(squatter).getOrganization({ organizationId: squatter.orgId });
    expect(organization?.primaryDomain).toBe('squatter.localhost');
    const list = (await api(squatter).listOrganizationDomains({ organizationId: squatter.orgId })).domains;
    expect(list.filter((d) => d.isPrimary).map((d) => d.domain)).toEqual(['squatter.localhost']);
  });

  it("a domain added ahead of a new organization's generated domain goes when it is created", async () => {
    await api(squatter).addOrganizationDomain({ organizationId: squatter.orgId, domain: 'newco.localhost' });
    const { organizationId } = await server.client(OrganizationService).createOrganization({ name: 'NewCo' });
    const { organization } = await server.client(OrganizationService).getOrganization({ organizationId });
    expect(organization?.primaryDomain).toBe('newco.localhost');
    expect(await domainsOf(squatter)).not.toContain('newco.localhost');
  });
});
