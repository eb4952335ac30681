import { Code, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OidcApplicationType } from '../../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../../gen/portcullis/application/v2/application_service_pb';
import { addProject } from '../../helpers/apps';
import { defaultOrgId } from '../../helpers/context';
import { addMachineWithToken } from '../../helpers/machines';
import { addOrg } from '../../helpers/orgs';
import { rows } from '../../helpers/rows';
import { startTestServer, type TestServer } from '../../helpers/server';

/** UpdateApplication with validate_only: the compliance problems of a change, nothing saved. */
describe('UpdateApplication validate_only', () => {
  let server: TestServer;
  let admin: Client<typeof ApplicationService>;
  let appId: string;
  let orgId: string;
  beforeAll(async () => {
    server = await startTestServer();
    admin = server.client(ApplicationService);
    orgId = await defaultOrgId(server);
    const projectId = await addProject(server, { orgId, name: 'Checked' });
    appId = (
      await admin.createApplication({
        projectId,
        name: 'Web',
        configuration: { case: 'oidc', value: { redirectUris: ['https://web.example.com/cb'] } },
      })
    ).applicationId;
  });
  afterAll(() => server?.stop());

  const saved = () => rows(server, `select name, oidc, secret_hash from applications where id = '${appId}'`);
  const eventCount = async () =>
    (await rows(server, `select count(*)::int as n from events where payload->>'appId' = '${appId}'`))[0].n;

  it('reports the problems of the change, with the same rules as a save, and saves nothing', async () => {
    const before = await saved();
    const events = await eventCount();
    const res = await admin.updateApplication({
      applicationId: appId,
      name: 'Renamed',
      configuration: {
        case: 'oidc',
        value: { redirectUris: ['http://web.example.com/cb'], applicationType: OidcApplicationType.USER_AGENT },
      },
      validateOnly: true,
    });
    expect(res.complianceProblems.map((p) => p.key).sort()).toEqual([
      'OIDC.AuthMethod.SecretInPublicClient',
      'OIDC.RedirectUris.HttpNotAllowed',
    ]);
    expect(res.clientSecret).toBeUndefined();
    expect(await saved()).toEqual(before);
    expect(await eventCount()).toBe(events);

    // the saved update reports the same problems
    const real = await admin.updateApplication({
      applicationId: appId,
      configuration: { case: 'oidc', value: { redirectUris: ['http://web.example.com/cb'] } },
    });
    const checked = await admin.updateApplication({
      applicationId: appId,
      configuration: { case: 'oidc', value: { redirectUris: ['http://web.example.com/cb'] } },
      validateOnly: true,
    });
    expect(checked.complianceProblems).toEqual(real.complianceProblems);
    expect(real.complianceProblems.map((p) => p.key)).toEqual(['OIDC.RedirectUris.HttpNotAllowed']);
  });

  it('refuses invalid input as the update does', async () => {
    await expect(
      admin.updateApplication({
        applicationId: appId,
        configuration: { case: 'oidc', value: { redirectUris: ['not a uri'] } },
        validateOnly: true,
      }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
  });

  it('an admin of another organization, or a caller without roles, is refused: NOT_FOUND, no problems', async () => {
    const other = (await addOrg(server, 'Other')).id;
    const adminB = server.client(ApplicationService, {
      token: (
        await addMachineWithToken(server, other, {
          membership: { resourceType: 'ORG', resourceId: other, resourceOwner: other, roles: ['ORG_OWNER'] },
        })
      ).token,
    });
    const nobody = server.client(ApplicationService, { token: (await addMachineWithToken(server, orgId)).token });
    for (const client of [adminB, nobody]) {
      await expect(
        client.updateApplication({
          applicationId: appId,
          configuration: { case: 'oidc', value: { redirectUris: ['http://web.example.com/cb'] } },
          validateOnly: true,
        }),
      ).rejects.toMatchObject({ code: Code.NotFound });
    }
  });
});
