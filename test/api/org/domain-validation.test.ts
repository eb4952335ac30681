import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainValidationType, OrganizationService } from '../../../gen/portcullis/org/v2/org_service_pb';
import { verifyDomain } from '../../../src/domain/org/domain-validation';
import { systemCtx } from '../../helpers/context';
import { addMachineWithToken } from '../../helpers/machines';
import { rows } from '../../helpers/rows';
import { startTestServer, type TestServer } from '../../helpers/server';

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof ConnectError ? Code[e.code] : String(e)),
  );

/** Domain validation: a DNS TXT token issued, checked, the domain verified; only with org.write. */
describe('OrganizationService domain validation', () => {
  let server: TestServer;
  let orgId: string;
  beforeAll(async () => {
    server = await startTestServer();
    const orgs = server.client(OrganizationService);
    orgId = (await orgs.createOrganization({ name: 'Validated' })).organizationId;
    await orgs.addOrganizationDomain({ organizationId: orgId, domain: 'validated.example' });
  });
  afterAll(() => server?.stop());

  it('issues a token for a TXT record and verifies the domain once the record holds it', async () => {
    const orgs = server.client(OrganizationService);
    const issued = await orgs.generateOrganizationDomainValidation({
      organizationId: orgId,
      domain: 'validated.example',
      type: DomainValidationType.DNS,
    });
    expect(issued.url).toBe('_portcullis-challenge.validated.example');
    expect(issued.token).toMatch(/^pc-/);

    const input = { orgId, domain: 'validated.example' };
    const wrong = verifyDomain(systemCtx(server), input, async () => ['something-else']);
    await expect(wrong).rejects.toThrow(/do not hold the token \(found: "something-else"\)/);
    const lookedUp: string[] = [];
    await verifyDomain(systemCtx(server), input, async (name) => {
      lookedUp.push(name);
      return ['v=spf1 -all', issued.token];
    });
    expect(lookedUp).toEqual(['_portcullis-challenge.validated.example']);
    const [row] = await rows(
      server,
      `select is_verified, validation_token from org_domains
      where org_id = '${orgId}' and domain = 'validated.example'`,
    );
    expect(row).toEqual({ is_verified: true, validation_token: null });
    const again = orgs.generateOrganizationDomainValidation({
      organizationId: orgId,
      domain: 'validated.example',
      type: DomainValidationType.DNS,
    });
    expect(await codeOf(again)).toBe('FailedPrecondition');
  });

  it('refuses a caller without org.write, another organization, and a missing type', async () => {
    await server.client(OrganizationService).addOrganizationDomain({ organizationId: orgId, domain: 'b.example' });
    const request = { organizationId: orgId, domain: 'b.example', type: DomainValidationType.DNS };
    const manager = await addMachineWithToken(server, orgId, { roles: ['ORG_USER_MANAGER'] });
    const asManager = server.client(OrganizationService, { token: manager.token });
    expect(await codeOf(asManager.generateOrganizationDomainValidation(request))).toBe('PermissionDenied');
    expect(await codeOf(asManager.verifyOrganizationDomain(request))).toBe('PermissionDenied');

    const otherOrg = (await server.client(OrganizationService).createOrganization({ name: 'Other' })).organizationId;
    const stranger = await addMachineWithToken(server, otherOrg, { roles: ['ORG_OWNER'] });
    const asStranger = server.client(OrganizationService, { token: stranger.token });
    expect(await codeOf(asStranger.generateOrganizationDomainValidation(request))).toBe('NotFound');
    expect(await codeOf(asStranger.verifyOrganizationDomain(request))).toBe('NotFound');

    const untyped = { ...request, type: DomainValidationType.UNSPECIFIED };
    expect(await codeOf(server.client(OrganizationService).generateOrganizationDomainValidation(untyped))).toBe(
      'InvalidArgument',
    );
    const [row] = await rows(server, `select validation_token from org_domains where domain = 'b.example'`);
    expect(row.validation_token).toBeNull();
  });
});
