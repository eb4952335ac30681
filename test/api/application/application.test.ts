import { createPublicKey } from 'node:crypto';
import { create, toJson } from '@bufbuild/protobuf';
import { DurationSchema, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, type Client } from '@connectrpc/connect';
import { and, asc, eq } from 'drizzle-orm';
import { importPKCS8, importSPKI, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiAuthMethodType,
  ApplicationKeyFileSchema,
  ApplicationState,
  ApplicationType,
  OidcApplicationType,
  OidcAuthMethodType,
  OidcGrantType,
  OidcResponseType,
} from '../../../gen/portcullis/application/v2/application_pb';
import { ApplicationService } from '../../../gen/portcullis/application/v2/application_service_pb';
import { TextFilterMethod } from '../../../gen/portcullis/object/v2/object_pb';
import { events, users } from '../../../src/db/schema/index';
import {
  findOidcClientByClientId,
  listApplicationKeys,
  verifyClientSecret,
} from '../../../src/domain/application/queries';
import { startTestServer, type TestServer } from '../../helpers/server';
import { addProject } from '../../helpers/apps';
import { defaultOrgId } from '../../helpers/context';
import { addOrg } from '../../helpers/orgs';

const SAML_ACS =
  '<md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" ' +
  'Location="https://sp.example.com/acs" index="0"/>';
const SAML_METADATA = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example.com/metadata">
  <md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    ${SAML_ACS}
  </md:SPSSODescriptor>
</md:EntityDescriptor>`;

describe('ApplicationService', () => {
  let server: TestServer;
  let apps: Client<typeof ApplicationService>;
  let orgId: string;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer();
    apps = server.client(ApplicationService);
    orgId = await defaultOrgId(server);
    projectId = await addProject(server, { orgId, name: 'Shop Front' });
  });
  afterAll(() => server?.stop());

  const post = (method: string, body: unknown) =>
    server.fetch(`/portcullis.application.v2.ApplicationService/${method}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('creates an OIDC web client over Connect JSON: client id, secret shown once, stored only as a hash', async () => {
    const res = await post('CreateApplication', {
      projectId,
      name: 'Shop Web',
      oidc: {
        redirectUris: ['https://shop.example.com/callback'],
        postLogoutRedirectUris: ['https://shop.example.com/'],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
        applicationType: 'OIDC_APPLICATION_TYPE_WEB',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_BASIC',
        accessTokenType: 'OIDC_ACCESS_TOKEN_TYPE_JWT',
        clockSkew: '2s',
      },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.applicationId).toMatch(/^\d+$/);
    expect(body.oidc.clientId).toBe(`${body.applicationId}@shop-front`);
    expect(body.oidc.clientSecret.length).toBeGreaterThanOrEqual(43);
    expect(body.oidc.complianceProblems ?? []).toEqual([]);

    const got = (await post('GetApplication', { applicationId: body.applicationId }).then((r) => r.json())).application;
    expect(got).toMatchObject({
      applicationId: body.applicationId,
      projectId,
      organizationId: orgId,
      name: 'Shop Web',
      state: 'APPLICATION_STATE_ACTIVE',
      hasClientSecret: true,
      oidc: {
        clientId: body.oidc.clientId,
        accessTokenType: 'OIDC_ACCESS_TOKEN_TYPE_JWT',
        clockSkew: '2s',
        redirectUris: ['https://shop.example.com/callback'],
      },
    });
    expect(JSON.stringify(got)).not.toContain(body.oidc.clientSecret);

    const client = await findOidcClientByClientId(server.app.database.db, body.oidc.clientId);
    expect(client).toMatchObject({
      applicationId: body.applicationId,
      projectId,
      orgId,
      state: 'ACTIVE',
      type: 'OIDC',
    });
    expect(client!.secretHash).not.toContain(body.oidc.clientSecret);
    expect(verifyClientSecret(client!, body.oidc.clientSecret)).toBe(true);
    expect(verifyClientSecret(client!, 'wrong')).toBe(false);
  });

  it('fills defaults and gives public and key clients no secret', async () => {
    const pub = await apps.createApplication({
      projectId,
      name: 'Shop SPA',
      configuration: {
        case: 'oidc',
        value: {
          redirectUris: ['https://spa.example.com/cb'],
          applicationType: OidcApplicationType.USER_AGENT,
          authMethodType: OidcAuthMethodType.NONE,
        },
      },
    });
    expect(pub.configuration.case).toBe('oidc');
    expect(pub.configuration.value).toMatchObject({ complianceProblems: [] });
    expect((pub.configuration.value as { clientSecret?: string }).clientSecret).toBeUndefined();
    const got = (await apps.getApplication({ applicationId: pub.applicationId })).application!;
    expect(got.hasClientSecret).toBe(false);
    expect(got.configuration.case === 'oidc' && got.configuration.value).toMatchObject({
      responseTypes: [OidcResponseType.CODE],
      grantTypes: [OidcGrantType.AUTHORIZATION_CODE],
    });

    const jwt = await apps.createApplication({
      projectId,
      name: 'Shop Backend',
      configuration: {
        case: 'oidc',
        value: { redirectUris: ['https://b.example.com/cb'], authMethodType: OidcAuthMethodType.PRIVATE_KEY_JWT },
      },
    });
    expect((jwt.configuration.value as { clientSecret?: string }).clientSecret).toBeUndefined();
  });

  it('reports compliance problems for configurations that cannot work, and still saves them', async () => {
    const res = await apps.createApplication({
      projectId,
      name: 'Broken',
      configuration: {
        case: 'oidc',
        value: {
          redirectUris: ['http://shop.example.com/cb', 'https://shop.example.com/cb#frag', 'myapp://cb'],
          responseTypes: [OidcResponseType.CODE, OidcResponseType.ID_TOKEN],
          grantTypes: [OidcGrantType.AUTHORIZATION_CODE],
          applicationType: OidcApplicationType.USER_AGENT,
          authMethodType: OidcAuthMethodType.POST,
        },
      },
    });
    const keys = res.configuration.case === 'oidc' ? res.configuration.value.complianceProblems.map((p) => p.key) : [];
    expect(keys.sort()).toEqual(
      [
        'OIDC.AuthMethod.SecretInPublicClient',
        'OIDC.GrantType.ImplicitMissing',
        'OIDC.RedirectUris.CustomSchemeNotAllowed',
        'OIDC.RedirectUris.Fragment',
        'OIDC.RedirectUris.HttpNotAllowed',
      ].sort(),
    );
    const problems = res.configuration.case === 'oidc' ? res.configuration.value.complianceProblems : [];
    const problem = problems.find((p) => p.key === 'OIDC.RedirectUris.HttpNotAllowed')!;
    expect(problem.message).toContain('http://shop.example.com/cb');
    const got = (await apps.getApplication({ applicationId: res.applicationId })).application!;
    expect(got.complianceProblems.length).toBe(5);

    const noRedirect = await apps.createApplication({
      projectId,
      name: 'No redirect',
      configuration: {
        case: 'oidc',
        value: { grantTypes: [OidcGrantType.IMPLICIT], responseTypes: [OidcResponseType.ID_TOKEN_TOKEN] },
      },
    });
    expect(
      noRedirect.configuration.case === 'oidc' && noRedirect.configuration.value.complianceProblems.map((p) => p.key),
    ).toEqual(['OIDC.RedirectUris.Missing']);

    const native = await apps.createApplication({
      projectId,
      name: 'Native',
      configuration: {
        case: 'oidc',
        value: {
          redirectUris: ['com.example.shop:/callback', 'http://127.0.0.1:7000/cb', 'http://shop.example.com/cb'],
          applicationType: OidcApplicationType.NATIVE,
          authMethodType: OidcAuthMethodType.NONE,
          developmentMode: true,
        },
      },
    });
    expect(
      native.configuration.case === 'oidc' && native.configuration.value.complianceProblems.map((p) => p.key),
    ).toEqual(['OIDC.RedirectUris.NativeHttpNotLoopback']);

    const dev = await apps.createApplication({
      projectId,
      name: 'Dev web',
      configuration: { case: 'oidc', value: { redirectUris: ['http://dev.internal:3000/cb'], developmentMode: true } },
    });
    expect(dev.configuration.case === 'oidc' && dev.configuration.value.complianceProblems).toEqual([]);
  });

  it('rejects invalid input with INVALID_ARGUMENT naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { projectId, name: 'x', oidc: { redirectUris: ['https://ok.example.com/cb', 'not a url'] } },
        'oidc.redirect_uris[1]',
      ],
      [{ projectId, name: '', oidc: {} }, 'name'],
      [{ projectId, name: 'x'.repeat(201), oidc: {} }, 'name'],
      [{ projectId, name: 'x', oidc: { clockSkew: '6s' } }, 'oidc.clock_skew'],
      [
        { projectId, name: 'x', oidc: { additionalOrigins: ['https://a.example.com/path'] } },
        'oidc.additional_origins[0]',
      ],
      [{ projectId, name: 'x' }, 'oidc, saml or api'],
      [{ name: 'x', api: {} }, 'project_id'],
      [{ projectId, applicationId: 'has space', name: 'x', api: {} }, 'application_id'],
      [{ projectId, name: 'x', saml: { metadataXml: '<html/>' } }, 'saml.metadata_xml'],
      [{ projectId, name: 'x', saml: { metadataUrl: 'ftp://sp.example.com/md' } }, 'saml.metadata_url'],
      [{ projectId, name: 'x', oidc: { responseTypes: ['OIDC_RESPONSE_TYPE_UNSPECIFIED'] } }, 'oidc.response_types[0]'],
    ];
    for (const [body, field] of cases) {
      const res = await post('CreateApplication', body);
      const err = await res.json();
      expect({ field, status: res.status, code: err.code }).toEqual({ field, status: 400, code: 'invalid_argument' });
      expect(err.message).toContain(field);
    }
  });

  it('creates API and SAML applications', async () => {
    const api = await apps.createApplication({
      projectId,
      name: 'Orders API',
      configuration: { case: 'api', value: { authMethodType: ApiAuthMethodType.BASIC } },
    });
    expect(api.configuration.case).toBe('api');
    const apiCreds = api.configuration.value as { clientId: string; clientSecret?: string };
    expect(apiCreds.clientId).toBe(`${api.applicationId}@shop-front`);
    // the client id is in the same place in Create, Get and List: inside the type-specific object
    const gotApi = (await apps.getApplication({ applicationId: api.applicationId })).application!;
    expect(gotApi.configuration).toMatchObject({ case: 'api', value: { clientId: apiCreds.clientId } });
    const listed = (await apps.listApplications({ filters: [{ filter: { case: 'projectId', value: projectId } }] }))
      .applications;
    expect(listed.find((a) => a.applicationId === api.applicationId)?.configuration.value).toMatchObject({
      clientId: apiCreds.clientId,
    });
    const stored = await findOidcClientByClientId(server.app.database.db, apiCreds.clientId);
    expect(verifyClientSecret(stored!, apiCreds.clientSecret!)).toBe(true);

    const saml = await apps.createApplication({
      projectId,
      applicationId: 'shop-saml',
      name: 'Shop SAML',
      configuration: { case: 'saml', value: { metadata: { case: 'metadataXml', value: SAML_METADATA } } },
    });
    expect(saml.applicationId).toBe('shop-saml');
    expect(saml.configuration.case).toBe('saml');
    const got = (await apps.getApplication({ applicationId: 'shop-saml' })).application!;
    expect(got).not.toHaveProperty('clientId');
    expect(got.configuration.case === 'saml' && got.configuration.value.metadata).toEqual({
      case: 'metadataXml',
      value: SAML_METADATA,
    });

    await expect(
      apps.createApplication({
        projectId,
        applicationId: 'shop-saml',
        name: 'again',
        configuration: { case: 'api', value: {} },
      }),
    ).rejects.toMatchObject({ code: Code.AlreadyExists });
  });

  it('updates: set fields change, lists are replaced, update_mask empties a list, compliance recomputed', async () => {
    const created = await apps.createApplication({
      projectId,
      name: 'Updatable',
      configuration: {
        case: 'oidc',
        value: {
          redirectUris: ['https://u.example.com/a', 'https://u.example.com/b'],
          additionalOrigins: ['https://extra.example.com'],
        },
      },
    });
    const id = created.applicationId;
    const res = await apps.updateApplication({
      applicationId: id,
      name: 'Updated',
      configuration: { case: 'oidc', value: { redirectUris: ['http://u.example.com/c'], idTokenRoleAssertion: true } },
    });
    expect(res.complianceProblems.map((p) => p.key)).toEqual(['OIDC.RedirectUris.HttpNotAllowed']);
    let got = (await apps.getApplication({ applicationId: id })).application!;
    expect(got.name).toBe('Updated');
    expect(got.configuration.value).toMatchObject({
      redirectUris: ['http://u.example.com/c'],
      additionalOrigins: ['https://extra.example.com'],
      idTokenRoleAssertion: true,
    });
    expect(got.complianceProblems.map((p) => p.key)).toEqual(['OIDC.RedirectUris.HttpNotAllowed']);

    await apps.updateApplication({
      applicationId: id,
      configuration: { case: 'oidc', value: { developmentMode: true } },
      updateMask: { paths: ['oidc.additional_origins', 'oidc.development_mode'] },
    });
    got = (await apps.getApplication({ applicationId: id })).application!;
    expect(got.name).toBe('Updated');
    expect(got.configuration.value).toMatchObject({
      additionalOrigins: [],
      developmentMode: true,
      redirectUris: ['http://u.example.com/c'],
    });
    expect(got.complianceProblems).toEqual([]);

    const json = await post('UpdateApplication', { applicationId: id, updateMask: 'oidc.redirectUris', oidc: {} }).then(
      (r) => r.json(),
    );
    expect(json.complianceProblems.map((p: { key: string }) => p.key)).toEqual(['OIDC.RedirectUris.Missing']);
    got = (await apps.getApplication({ applicationId: id })).application!;
    expect(got.configuration.value).toMatchObject({ redirectUris: [], developmentMode: true });

    await expect(
      apps.updateApplication({ applicationId: id, configuration: { case: 'api', value: {} } }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(
      apps.updateApplication({
        applicationId: id,
        updateMask: { paths: ['oidc.nonsense'] },
        configuration: { case: 'oidc', value: {} },
      }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: expect.stringContaining('oidc.nonsense') });
  });

  it('changing the auth method drops or creates the secret', async () => {
    const created = await apps.createApplication({
      projectId,
      name: 'Switcher',
      configuration: { case: 'oidc', value: { redirectUris: ['https://s.example.com/cb'] } },
    });
    const id = created.applicationId;
    const clientId = (created.configuration.value as { clientId: string }).clientId;
    const toNone = await apps.updateApplication({
      applicationId: id,
      configuration: { case: 'oidc', value: { authMethodType: OidcAuthMethodType.NONE } },
    });
    expect(toNone.clientSecret).toBeUndefined();
    expect((await apps.getApplication({ applicationId: id })).application!.hasClientSecret).toBe(false);
    expect((await findOidcClientByClientId(server.app.database.db, clientId))!.secretHash).toBeNull();

    const toPost = await apps.updateApplication({
      applicationId: id,
      configuration: { case: 'oidc', value: { authMethodType: OidcAuthMethodType.POST } },
    });
    expect(toPost.clientSecret).toBeTruthy();
    expect(
      verifyClientSecret((await findOidcClientByClientId(server.app.database.db, clientId))!, toPost.clientSecret!),
    ).toBe(true);
  });

  it('generates a new client secret; the old one stops working', async () => {
    const created = await apps.createApplication({
      projectId,
      name: 'Rotator',
      configuration: { case: 'api', value: {} },
    });
    const { clientId, clientSecret: first } = created.configuration.value as { clientId: string; clientSecret: string };
    const { clientSecret: second } = await apps.generateClientSecret({ applicationId: created.applicationId });
    expect(second).not.toBe(first);
    const client = (await findOidcClientByClientId(server.app.database.db, clientId))!;
    expect(verifyClientSecret(client, second)).toBe(true);
    expect(verifyClientSecret(client, first)).toBe(false);

    const keyApp = await apps.createApplication({
      projectId,
      name: 'Key only',
      configuration: { case: 'api', value: { authMethodType: ApiAuthMethodType.PRIVATE_KEY_JWT } },
    });
    await expect(apps.generateClientSecret({ applicationId: keyApp.applicationId })).rejects.toMatchObject({
      code: Code.FailedPrecondition,
    });
  });

  it('deactivates, reactivates and deletes; deleting again succeeds', async () => {
    const created = await apps.createApplication({
      projectId,
      name: 'Lifecycle',
      configuration: { case: 'api', value: {} },
    });
    const id = created.applicationId;
    const clientId = (created.configuration.value as { clientId: string }).clientId;
    await apps.deactivateApplication({ applicationId: id });
    expect((await apps.getApplication({ applicationId: id })).application!.state).toBe(ApplicationState.INACTIVE);
    expect((await findOidcClientByClientId(server.app.database.db, clientId))!.state).toBe('INACTIVE');
    await expect(apps.deactivateApplication({ applicationId: id })).rejects.toMatchObject({
      code: Code.FailedPrecondition,
    });
    await apps.reactivateApplication({ applicationId: id });
    expect((await apps.getApplication({ applicationId: id })).application!.state).toBe(ApplicationState.ACTIVE);

    const first = await apps.deleteApplication({ applicationId: id });
    expect(first.deletionDate).toBeDefined();
    await apps.deleteApplication({ applicationId: id });
    await expect(apps.getApplication({ applicationId: id })).rejects.toMatchObject({ code: Code.NotFound });
    expect(await findOidcClientByClientId(server.app.database.db, clientId)).toBeUndefined();
    const listed = await apps.listApplications({ filters: [{ filter: { case: 'projectId', value: projectId } }] });
    expect(listed.applications.map((a) => a.applicationId)).not.toContain(id);
    await expect(apps.deleteApplication({ applicationId: 'never-existed' })).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });

  it('creates keys for private_key_jwt: the key file signs assertions the stored public key verifies', async () => {
    const created = await apps.createApplication({
      projectId,
      name: 'Key client',
      configuration: {
        case: 'oidc',
        value: { redirectUris: ['https://k.example.com/cb'], authMethodType: OidcAuthMethodType.PRIVATE_KEY_JWT },
      },
    });
    const id = created.applicationId;
    const clientId = (created.configuration.value as { clientId: string }).clientId;
    const expires = new Date(Date.now() + 24 * 3600 * 1000);
    const res = await apps.createApplicationKey({ applicationId: id, expirationDate: timestampFromDate(expires) });
    const file = toJson(ApplicationKeyFileSchema, res.keyFile!) as Record<string, string>;
    expect(file).toMatchObject({ type: 'application', keyId: res.keyId, appId: id, clientId });
    expect(file.key).toContain('-----BEGIN PRIVATE KEY-----');

    const stored = await listApplicationKeys(server.app.database.db, clientId);
    expect(stored).toHaveLength(1);
    expect(stored[0].publicKey).not.toContain('PRIVATE');
    expect(createPublicKey(stored[0].publicKey).asymmetricKeyDetails?.modulusLength).toBe(2048);
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: file.keyId })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(server.url)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(await importPKCS8(file.key, 'RS256'));
    const verified = await jwtVerify(assertion, await importSPKI(stored[0].publicKey, 'RS256'));
    expect(verified.payload.sub).toBe(clientId);

    const second = await apps.createApplicationKey({ applicationId: id });
    const listed = await apps.listApplicationKeys({ applicationId: id });
    expect(listed.pagination?.totalResult).toBe(2n);
    expect(listed.keys.map((k) => k.keyId)).toEqual([second.keyId, res.keyId]);
    expect(listed.keys[1].expirationDate?.seconds).toBe(BigInt(Math.floor(expires.getTime() / 1000)));

    await apps.deleteApplicationKey({ applicationId: id, keyId: res.keyId });
    await apps.deleteApplicationKey({ applicationId: id, keyId: res.keyId });
    expect((await apps.listApplicationKeys({ applicationId: id })).keys.map((k) => k.keyId)).toEqual([second.keyId]);
    expect((await listApplicationKeys(server.app.database.db, clientId)).map((k) => k.keyId)).toEqual([second.keyId]);

    const secretApp = await apps.createApplication({
      projectId,
      name: 'Secret app',
      configuration: { case: 'api', value: {} },
    });
    await expect(apps.createApplicationKey({ applicationId: secretApp.applicationId })).rejects.toMatchObject({
      code: Code.FailedPrecondition,
    });
    await expect(
      apps.createApplicationKey({ applicationId: id, expirationDate: timestampFromDate(new Date(Date.now() - 1000)) }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: expect.stringContaining('expiration_date') });
  });

  it('lists with filters and pagination', async () => {
    const other = await addProject(server, { orgId, name: 'Back Office' });
    for (const name of ['Office Alpha', 'Office Beta', 'office gamma']) {
      await apps.createApplication({ projectId: other, name, configuration: { case: 'api', value: {} } });
    }
    await apps.createApplication({
      projectId: other,
      name: 'Office SAML',
      configuration: { case: 'saml', value: { metadata: { case: 'metadataUrl', value: 'https://sp.example.com/md' } } },
    });
    const byProject = (extra: object[] = [], pagination?: object) =>
      apps.listApplications({
        pagination,
        filters: [{ filter: { case: 'projectId', value: other } }, ...(extra as never[])],
      });

    const all = await byProject();
    expect(all.pagination?.totalResult).toBe(4n);
    expect(all.pagination?.appliedLimit).toBe(100n);
    expect(all.applications.map((a) => a.name)).toEqual(['Office SAML', 'office gamma', 'Office Beta', 'Office Alpha']);

    const page = await byProject([], { offset: 1n, limit: 2, asc: true });
    expect(page.applications.map((a) => a.name)).toEqual(['Office Beta', 'office gamma']);
    expect(page.pagination?.totalResult).toBe(4n);

    const prefix = await byProject([
      { filter: { case: 'name', value: { name: 'office', method: TextFilterMethod.STARTS_WITH_IGNORE_CASE } } },
    ]);
    expect(prefix.applications).toHaveLength(4);
    const exact = await byProject([{ filter: { case: 'name', value: { name: 'Office Beta' } } }]);
    expect(exact.applications.map((a) => a.name)).toEqual(['Office Beta']);
    const saml = await byProject([{ filter: { case: 'type', value: ApplicationType.SAML } }]);
    expect(saml.applications.map((a) => a.name)).toEqual(['Office SAML']);
    // by the organization that owns the project: another organization's application is not among them
    const elsewhere = await addProject(server, { orgId: (await addOrg(server, 'Elsewhere')).id, name: 'Far' });
    await apps.createApplication({
      projectId: elsewhere,
      name: 'Office Far',
      configuration: { case: 'api', value: {} },
    });
    const ofOrg = await apps.listApplications({
      pagination: { limit: 1000 },
      filters: [{ filter: { case: 'organizationId', value: orgId } }],
    });
    expect(ofOrg.applications.map((a) => a.name)).toContain('Office Beta');
    expect(ofOrg.applications.every((a) => a.organizationId === orgId)).toBe(true);
    const wildcard = await byProject([
      { filter: { case: 'name', value: { name: '%', method: TextFilterMethod.CONTAINS } } },
    ]);
    expect(wildcard.applications).toHaveLength(0);

    await expect(apps.listApplications({ pagination: { limit: 5000 } })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: 'pagination.limit must be at most 1000',
    });
  });

  it('works over gRPC with HTTP/2 prior knowledge', async () => {
    const grpc = server.client(ApplicationService, { protocol: 'grpc' });
    const created = await grpc.createApplication({
      projectId,
      name: 'gRPC app',
      configuration: {
        case: 'oidc',
        value: {
          redirectUris: ['https://g.example.com/cb'],
          clockSkew: create(DurationSchema, { seconds: 1n, nanos: 500_000_000 }),
        },
      },
    });
    const got = (await grpc.getApplication({ applicationId: created.applicationId })).application!;
    expect(got.name).toBe('gRPC app');
    expect(got.configuration.case === 'oidc' && got.configuration.value.clockSkew).toMatchObject({
      seconds: 1n,
      nanos: 500_000_000,
    });
    await expect(grpc.getApplication({ applicationId: 'nope' })).rejects.toMatchObject({ code: Code.NotFound });
  });

  it('records each mutation as a project event with editor and owner; a failed command records none', async () => {
    const db = server.app.database.db;
    const [machine] = await db.select({ id: users.id }).from(users).where(eq(users.username, 'admin-machine'));
    const project = await addProject(server, { orgId, name: 'Evented' });
    const created = await apps.createApplication({
      projectId: project,
      name: 'Evented',
      configuration: {
        case: 'oidc',
        value: { redirectUris: ['https://e.example.com/cb'], authMethodType: OidcAuthMethodType.PRIVATE_KEY_JWT },
      },
    });
    const id = created.applicationId;
    await apps.updateApplication({
      applicationId: id,
      name: 'Evented 2',
      configuration: { case: 'oidc', value: { developmentMode: true } },
    });
    await apps.deactivateApplication({ applicationId: id });
    await apps.reactivateApplication({ applicationId: id });
    const key = await apps.createApplicationKey({ applicationId: id });
    await apps.deleteApplicationKey({ applicationId: id, keyId: key.keyId });
    await apps.updateApplication({
      applicationId: id,
      configuration: { case: 'oidc', value: { authMethodType: OidcAuthMethodType.BASIC } },
    });
    await apps.generateClientSecret({ applicationId: id });
    const api = await apps.createApplication({
      projectId: project,
      name: 'Evented API',
      configuration: { case: 'api', value: {} },
    });
    await apps.createApplication({
      projectId: project,
      name: 'Evented SAML',
      configuration: { case: 'saml', value: { metadata: { case: 'metadataUrl', value: 'https://sp.example.com/md' } } },
    });
    await apps.deleteApplication({ applicationId: id });
    await apps.deleteApplication({ applicationId: id });

    const before = await db.select().from(events).where(eq(events.aggregateId, project));
    await expect(
      apps.createApplication({
        projectId: project,
        applicationId: api.applicationId,
        name: 'Duplicate',
        configuration: { case: 'api', value: {} },
      }),
    ).rejects.toMatchObject({ code: Code.AlreadyExists });
    const after = await db.select().from(events).where(eq(events.aggregateId, project)).orderBy(asc(events.sequence));
    expect(after).toHaveLength(before.length);

    const appEvents = after.filter((e) => e.eventType.startsWith('project.application.'));
    expect(appEvents.map((e) => e.eventType)).toEqual([
      'project.application.added',
      'project.application.config.oidc.added',
      'project.application.changed',
      'project.application.config.oidc.changed',
      'project.application.deactivated',
      'project.application.reactivated',
      'project.application.key.added',
      'project.application.key.removed',
      'project.application.config.oidc.changed',
      'project.application.secret.changed',
      'project.application.secret.changed',
      'project.application.added',
      'project.application.config.api.added',
      'project.application.added',
      'project.application.config.saml.added',
      'project.application.removed',
    ]);
    for (const e of appEvents) {
      expect(e).toMatchObject({ aggregateType: 'project', resourceOwner: orgId, editorUserId: machine.id });
      expect(e.editorService).toMatch(/^portcullis\.application\.v2\.ApplicationService\//);
    }
    expect(appEvents[0].payload).toMatchObject({ appId: id, name: 'Evented' });
    expect(JSON.stringify(after)).not.toMatch(/BEGIN PRIVATE KEY/);
    const sequences = after.map((e) => e.sequence);
    expect(sequences).toEqual(sequences.map((_, i) => i + 1));
    const [added] = await db
      .select()
      .from(events)
      .where(and(eq(events.aggregateId, project), eq(events.eventType, 'project.application.config.oidc.added')));
    expect(added.payload).toMatchObject({
      appId: id,
      authMethodType: 'PRIVATE_KEY_JWT',
      redirectUris: ['https://e.example.com/cb'],
    });
  });
});
