import { toJsonString } from '@bufbuild/protobuf';
import { type Client, Code, ConnectError } from '@connectrpc/connect';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AutoLinkingOption,
  AzureADTenantType,
  ClientAuthMethod,
  IdentityProviderState,
  IdentityProviderType,
  SAMLBinding,
  SAMLNameIDFormat,
} from '../../../gen/portcullis/idp/v2/identity_provider_pb';
import {
  GetIdentityProviderResponseSchema,
  IdentityProviderService,
  ListIdentityProvidersResponseSchema,
} from '../../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { loadMasterKey } from '../../../src/crypto/keys/master-key';
import { identityProviders } from '../../../src/db/schema/index';
import { openSecrets } from '../../../src/domain/idp/secrets';
import { eventsSince, lastPosition } from '../../helpers/events';
import { addMachineWithToken } from '../../helpers/machines';
import { addOrg } from '../../helpers/orgs';
import { startTestServer, type TestServer } from '../../helpers/server';
import { type ConfigInit, ldapConfig, oidcConfig, p256Pem, SAML_METADATA } from './fixtures';

const codeOf = (p: Promise<unknown>): Promise<Code | 'ok'> =>
  p.then(
    () => 'ok' as const,
    (e: ConnectError) => e.code,
  );

/** The error's message, to check that a refusal names the field. */
const refusal = (p: Promise<unknown>): Promise<{ code: Code; message: string }> =>
  p.then(
    () => ({ code: Code.Unknown, message: 'it succeeded' }),
    (e) => ({ code: ConnectError.from(e).code, message: ConnectError.from(e).rawMessage }),
  );

describe('IdentityProviderService', () => {
  let server: TestServer;
  let admin: Client<typeof IdentityProviderService>;
  let orgA: string;
  let orgB: string;
  let ownerA: Client<typeof IdentityProviderService>;

  /** Stored secrets, decrypted: what no API answer shows. */
  const storedSecrets = async (id: string) => {
    const [row] = await server.app.database.db.select().from(identityProviders).where(eq(identityProviders.id, id));
    return openSecrets(loadMasterKey(server.app.config), row.secrets);
  };

  beforeAll(async () => {
    server = await startTestServer();
    admin = server.client(IdentityProviderService);
    orgA = (await addOrg(server, 'IdP Org A')).id;
    orgB = (await addOrg(server, 'IdP Org B')).id;
    const owner = await addMachineWithToken(server, orgA, { roles: ['ORG_OWNER'] });
    ownerA = server.client(IdentityProviderService, { token: owner.token });
  });
  afterAll(() => server?.stop());

  describe('every kind is created and read back, without its secrets', () => {
    const applePem = p256Pem();
    const jwtPem = p256Pem();
    const SECRETS = [
      'oidc-secret-1f3a',
      'oauth-secret-2b4c',
      'google-secret-3c5d',
      'github-secret-4d6e',
      'ghe-secret-5e7f',
      'gitlab-secret-6f80',
      'gitlab-sh-secret-7091',
      'azure-secret-81a2',
      'azure-id-secret-92b3',
      'ldap-bind-secret-a3c4',
      'jwt-oidc-secret-b4d5',
    ];
    const url = () => server.url;
    const cases: { name: string; config: ConfigInit; type: IdentityProviderType; back: () => unknown }[] = [
      {
        name: 'generic_oidc',
        config: {
          case: 'genericOidc',
          value: {
            issuer: 'https://accounts.example.com',
            clientId: 'oidc-client',
            clientSecret: SECRETS[0],
            clientAuthMethod: ClientAuthMethod.POST,
            scopes: ['openid', 'email'],
            useUserinfo: true,
            mapping: { username: 'preferred_username', email: '' },
          },
        },
        type: IdentityProviderType.OIDC,
        back: () => ({
          case: 'genericOidc',
          value: expect.objectContaining({
            issuer: 'https://accounts.example.com',
            clientId: 'oidc-client',
            clientSecret: '',
            clientAuthMethod: ClientAuthMethod.POST,
            scopes: ['openid', 'email'],
            useUserinfo: true,
            disablePkce: false,
            mapping: expect.objectContaining({ username: 'preferred_username', email: '', id: '' }),
          }),
        }),
      },
      {
        name: 'generic_oidc with private_key_jwt',
        config: {
          case: 'genericOidc',
          value: {
            issuer: 'https://login.example.org',
            clientId: 'jwt-client',
            clientSecret: SECRETS[10],
            clientAuthMethod: ClientAuthMethod.PRIVATE_KEY_JWT,
            privateKey: { pem: jwtPem, keyId: 'key-1' },
          },
        },
        type: IdentityProviderType.OIDC,
        back: () => ({
          case: 'genericOidc',
          value: expect.objectContaining({
            clientAuthMethod: ClientAuthMethod.PRIVATE_KEY_JWT,
            clientSecret: '',
          }),
        }),
      },
      {
        name: 'generic_oauth',
        config: {
          case: 'genericOauth',
          value: {
            authorizationEndpoint: 'https://oauth.example.com/authorize',
            tokenEndpoint: 'https://oauth.example.com/token',
            userinfoEndpoint: 'https://oauth.example.com/me',
            clientId: 'oauth-client',
            clientSecret: SECRETS[1],
            scopes: ['profile'],
            idAttribute: 'user_id',
            mapping: { email: 'contact.mail' },
          },
        },
        type: IdentityProviderType.OAUTH,
        back: () => ({
          case: 'genericOauth',
          value: expect.objectContaining({
            authorizationEndpoint: 'https://oauth.example.com/authorize',
            userinfoEndpoint: 'https://oauth.example.com/me',
            idAttribute: 'user_id',
            clientAuthMethod: ClientAuthMethod.UNSPECIFIED,
            clientSecret: '',
            mapping: expect.objectContaining({ email: 'contact.mail', username: '' }),
          }),
        }),
      },
      ...(
        [
          ['google', SECRETS[2]],
          ['github', SECRETS[3]],
          ['gitlab', SECRETS[5]],
        ] as const
      ).map(([k, clientSecret]) => ({
        name: k,
        config: { case: k, value: { clientId: `${k}-client`, clientSecret } } as ConfigInit,
        type: k === 'github' ? IdentityProviderType.OAUTH : IdentityProviderType.OIDC,
        back: () => ({ case: k, value: expect.objectContaining({ clientId: `${k}-client`, clientSecret: '' }) }),
      })),
      {
        name: 'github_enterprise',
        config: {
          case: 'githubEnterprise',
          value: {
            clientId: 'ghe-client',
            clientSecret: SECRETS[4],
            authorizationEndpoint: 'https://github.example.com/login/oauth/authorize',
            tokenEndpoint: 'https://github.example.com/login/oauth/access_token',
            userEndpoint: 'https://github.example.com/api/v3/user',
          },
        },
        type: IdentityProviderType.OAUTH,
        back: () => ({
          case: 'githubEnterprise',
          value: expect.objectContaining({ userEndpoint: 'https://github.example.com/api/v3/user', clientSecret: '' }),
        }),
      },
      {
        name: 'gitlab_self_hosted',
        config: {
          case: 'gitlabSelfHosted',
          value: { issuer: 'https://gitlab.example.com', clientId: 'gl-client', clientSecret: SECRETS[6] },
        },
        type: IdentityProviderType.OIDC,
        back: () => ({
          case: 'gitlabSelfHosted',
          value: expect.objectContaining({ issuer: 'https://gitlab.example.com', clientSecret: '' }),
        }),
      },
      {
        name: 'azure_ad with a tenant type',
        config: {
          case: 'azureAd',
          value: {
            clientId: 'azure-client',
            clientSecret: SECRETS[7],
            tenant: { case: 'tenantType', value: AzureADTenantType.AZURE_AD_TENANT_TYPE_ORGANIZATIONS },
            emailVerified: true,
          },
        },
        type: IdentityProviderType.OIDC,
        back: () => ({
          case: 'azureAd',
          value: expect.objectContaining({
            tenant: { case: 'tenantType', value: AzureADTenantType.AZURE_AD_TENANT_TYPE_ORGANIZATIONS },
            emailVerified: true,
            clientSecret: '',
          }),
        }),
      },
      {
        name: 'azure_ad with a tenant id',
        config: {
          case: 'azureAd',
          value: {
            clientId: 'azure-client-2',
            clientSecret: SECRETS[8],
            tenant: { case: 'tenantId', value: '8f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f' },
          },
        },
        type: IdentityProviderType.OIDC,
        back: () => ({
          case: 'azureAd',
          value: expect.objectContaining({
            tenant: { case: 'tenantId', value: '8f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f' },
          }),
        }),
      },
      {
        name: 'apple',
        config: {
          case: 'apple',
          value: { clientId: 'com.example.web', teamId: 'TEAM123456', keyId: 'KEY1234567', privateKey: applePem },
        },
        type: IdentityProviderType.OIDC,
        back: () => ({
          case: 'apple',
          value: expect.objectContaining({ clientId: 'com.example.web', teamId: 'TEAM123456', privateKey: '' }),
        }),
      },
      {
        name: 'saml',
        config: {
          case: 'saml',
          value: {
            metadata: { case: 'metadataXml', value: SAML_METADATA },
            binding: SAMLBinding.SAML_BINDING_POST,
            withSignedRequest: true,
            nameIdFormat: SAMLNameIDFormat.SAML_NAME_ID_FORMAT_EMAIL_ADDRESS,
            mapping: { email: 'mail' },
          },
        },
        type: IdentityProviderType.SAML,
        back: () => ({
          case: 'saml',
          value: expect.objectContaining({
            metadata: { case: 'metadataXml', value: SAML_METADATA },
            binding: SAMLBinding.SAML_BINDING_POST,
            withSignedRequest: true,
            nameIdFormat: SAMLNameIDFormat.SAML_NAME_ID_FORMAT_EMAIL_ADDRESS,
            allowUnsignedAssertions: false,
          }),
        }),
      },
      {
        name: 'ldap',
        config: ldapConfig(SECRETS[9]),
        type: IdentityProviderType.LDAP,
        back: () => ({
          case: 'ldap',
          value: expect.objectContaining({
            servers: ['ldap://127.0.0.1:389'],
            bindDn: 'cn=reader,dc=example,dc=com',
            bindPassword: '',
            userFilters: ['uid', 'mail'],
            // 0 (unset) is the documented default
            timeoutSeconds: 10,
          }),
        }),
      },
    ];
    const created: string[] = [];

    it.each(cases)('$name', async ({ name, config, type, back }) => {
      const res = await admin.createIdentityProvider({ name: `Sign in: ${name}`, config });
      created.push(res.id);
      const got = (await admin.getIdentityProvider({ id: res.id })).identityProvider!;
      expect(got).toMatchObject({
        id: res.id,
        organizationId: '',
        name: `Sign in: ${name}`,
        type,
        state: IdentityProviderState.ACTIVE,
        // no options given: the defaults (link or create, asking the user)
        options: {
          isLinkingAllowed: true,
          isCreationAllowed: true,
          isAutoCreation: false,
          autoLinking: AutoLinkingOption.UNSPECIFIED,
          storeTokens: false,
        },
        callbackUrl: res.callbackUrl,
        samlMetadataUrl: res.samlMetadataUrl,
      });
      expect(got.config).toEqual(back());
      // write-only: generic OIDC's private_key message and Apple's key come back empty
      expect((got.config.value as { privateKey?: unknown }).privateKey || undefined).toBeUndefined();
      expect(got.creationDate).toBeDefined();
      if (type === IdentityProviderType.SAML) {
        expect(res.callbackUrl).toBe(`${url()}/idps/${res.id}/saml/acs`);
        expect(res.samlMetadataUrl).toBe(`${url()}/idps/${res.id}/saml/metadata`);
      } else if (type === IdentityProviderType.LDAP) {
        expect(res.callbackUrl).toBe('');
      } else {
        expect(res.callbackUrl).toBe(`${url()}/idps/callback`);
        expect(res.samlMetadataUrl).toBe('');
      }
    });

    it('no answer carries a client secret, a private key, a bind password or the SP key', async () => {
      const answers = [
        ...(await Promise.all(
          created.map(async (id) =>
            toJsonString(GetIdentityProviderResponseSchema, await admin.getIdentityProvider({ id })),
          ),
        )),
        toJsonString(ListIdentityProvidersResponseSchema, await admin.listIdentityProviders({})),
      ].join('\n');
      expect(created).toHaveLength(cases.length);
      for (const s of SECRETS) expect(answers).not.toContain(s);
      expect(answers).not.toContain('PRIVATE KEY');
      expect(answers).not.toContain(applePem.split('\n')[1]);
      // yet they are stored: the SAML provider got its own service-provider key pair, the others their secrets
      const saml = created[cases.findIndex((c) => c.name === 'saml')];
      expect((await storedSecrets(saml)).samlSp).toBeDefined();
      expect((await storedSecrets(created[0])).clientSecret).toBe(SECRETS[0]);
      const ldap = created[cases.findIndex((c) => c.name === 'ldap')];
      expect((await storedSecrets(ldap)).bindPassword).toBe(SECRETS[9]);
      const apple = created[cases.findIndex((c) => c.name === 'apple')];
      expect((await storedSecrets(apple)).applePrivateKey).toBe(applePem);
    });
  });

  it('an update keeps secrets left empty, replaces given ones, and refuses another kind', async () => {
    const { id } = await admin.createIdentityProvider({ name: 'Keeps secrets', config: oidcConfig('first-secret') });
    const position = await lastPosition(server);
    await admin.updateIdentityProvider({
      id,
      name: 'Renamed',
      config: { case: 'genericOidc', value: { issuer: 'https://accounts.example.com', clientId: 'new-client' } },
    });
    const got = (await admin.getIdentityProvider({ id })).identityProvider!;
    expect(got.name).toBe('Renamed');
    expect(got.config).toMatchObject({ case: 'genericOidc', value: { clientId: 'new-client', clientSecret: '' } });
    expect((await storedSecrets(id)).clientSecret).toBe('first-secret');

    await admin.updateIdentityProvider({ id, config: oidcConfig('second-secret') });
    expect((await storedSecrets(id)).clientSecret).toBe('second-secret');
    // only options: the configuration stays
    await admin.updateIdentityProvider({
      id,
      options: { isLinkingAllowed: true, isCreationAllowed: true, isAutoCreation: true, storeTokens: true },
    });
    expect((await admin.getIdentityProvider({ id })).identityProvider).toMatchObject({
      options: { isAutoCreation: true, storeTokens: true },
      config: { case: 'genericOidc', value: { issuer: 'https://accounts.example.com' } },
    });
    expect((await storedSecrets(id)).clientSecret).toBe('second-secret');

    const kind = await refusal(admin.updateIdentityProvider({ id, config: ldapConfig() }));
    expect(kind.code).toBe(Code.InvalidArgument);
    expect(kind.message).toContain('generic_oidc');
    const types = (await eventsSince(server, position)).map((e) => e.eventType);
    expect(types).toEqual(['instance.idp.changed', 'instance.idp.changed', 'instance.idp.changed']);
  });

  it('delete removes it: NOT_FOUND afterwards, an event records it', async () => {
    const { id } = await admin.createIdentityProvider({ name: 'Short-lived', config: oidcConfig() });
    const position = await lastPosition(server);
    await admin.deleteIdentityProvider({ id });
    expect(await codeOf(admin.getIdentityProvider({ id }))).toBe(Code.NotFound);
    expect(await codeOf(admin.deleteIdentityProvider({ id }))).toBe(Code.NotFound);
    expect(await codeOf(admin.updateIdentityProvider({ id, name: 'Back' }))).toBe(Code.NotFound);
    expect((await admin.listIdentityProviders({})).result.map((p) => p.id)).not.toContain(id);
    const events = await eventsSince(server, position);
    expect(events.map((e) => e.eventType)).toEqual(['instance.idp.removed']);
  });

  it("lists the instance's providers, or an org's with the instance's, never another org's", async () => {
    const position = await lastPosition(server);
    const inst = await admin.createIdentityProvider({ name: 'Everyone', config: oidcConfig() });
    const a = await ownerA.createIdentityProvider({ organizationId: orgA, name: 'Only A', config: ldapConfig() });
    const b = await admin.createIdentityProvider({ organizationId: orgB, name: 'Only B', config: oidcConfig() });
    const ids = async (organizationId?: string) =>
      (await admin.listIdentityProviders({ organizationId, pagination: { limit: 1000 } })).result.map((p) => p.id);
    const instance = await ids();
    expect(instance).toContain(inst.id);
    expect(instance).not.toContain(a.id);
    expect(instance).not.toContain(b.id);
    const ofA = await ids(orgA);
    expect(ofA).toContain(inst.id);
    expect(ofA).toContain(a.id);
    expect(ofA).not.toContain(b.id);
    // the org owner sees its organization's list too, with the organization named on its own
    const asOwner = await ownerA.listIdentityProviders({ organizationId: orgA });
    expect(asOwner.result.find((p) => p.id === a.id)?.organizationId).toBe(orgA);
    expect(asOwner.result.find((p) => p.id === inst.id)?.organizationId).toBe('');
    expect(asOwner.pagination?.totalResult).toBe(BigInt(asOwner.result.length));

    const events = await eventsSince(server, position);
    expect(events.map((e) => [e.eventType, e.aggregateId])).toEqual([
      ['instance.idp.added', server.app.deps.instanceId],
      ['org.idp.added', orgA],
      ['org.idp.added', orgB],
    ]);
    expect(JSON.stringify(events)).not.toContain('oidc-client-secret-s3cr3t');
    expect(JSON.stringify(events)).not.toContain('ldap-bind-passw0rd');
  });

  describe('an organization owner reaches only its own organization', () => {
    let ofB: string;
    let ofInstance: string;
    let ofA: string;
    beforeAll(async () => {
      ofB = (await admin.createIdentityProvider({ organizationId: orgB, name: 'B', config: oidcConfig() })).id;
      ofInstance = (await admin.createIdentityProvider({ name: 'Instance', config: oidcConfig() })).id;
      ofA = (await ownerA.createIdentityProvider({ organizationId: orgA, name: 'A', config: oidcConfig() })).id;
    });

    it("manages its own organization's providers", async () => {
      await ownerA.updateIdentityProvider({ id: ofA, name: 'A renamed' });
      expect((await ownerA.getIdentityProvider({ id: ofA })).identityProvider?.name).toBe('A renamed');
    });

    it("cannot create, read, change or delete another organization's provider: NOT_FOUND", async () => {
      expect(
        await codeOf(ownerA.createIdentityProvider({ organizationId: orgB, name: 'Evil', config: oidcConfig() })),
      ).toBe(Code.NotFound);
      expect(await codeOf(ownerA.getIdentityProvider({ id: ofB }))).toBe(Code.NotFound);
      expect(await codeOf(ownerA.updateIdentityProvider({ id: ofB, name: 'Evil' }))).toBe(Code.NotFound);
      expect(await codeOf(ownerA.updateIdentityProvider({ id: ofB, config: oidcConfig('attacker') }))).toBe(
        Code.NotFound,
      );
      expect(await codeOf(ownerA.deleteIdentityProvider({ id: ofB }))).toBe(Code.NotFound);
      expect(await codeOf(ownerA.listIdentityProviders({ organizationId: orgB }))).toBe(Code.NotFound);
      const still = (await admin.getIdentityProvider({ id: ofB })).identityProvider!;
      expect(still.name).toBe('B');
      expect((await storedSecrets(ofB)).clientSecret).toBe('oidc-client-secret-s3cr3t');
    });

    it("cannot create, read, change or delete the instance's providers", async () => {
      expect(await codeOf(ownerA.createIdentityProvider({ name: 'Evil', config: oidcConfig() }))).toBe(
        Code.PermissionDenied,
      );
      expect(await codeOf(ownerA.getIdentityProvider({ id: ofInstance }))).toBe(Code.NotFound);
      expect(await codeOf(ownerA.updateIdentityProvider({ id: ofInstance, name: 'Evil' }))).toBe(Code.NotFound);
      expect(await codeOf(ownerA.deleteIdentityProvider({ id: ofInstance }))).toBe(Code.NotFound);
      expect(await codeOf(ownerA.listIdentityProviders({}))).toBe(Code.PermissionDenied);
      expect((await admin.getIdentityProvider({ id: ofInstance })).identityProvider?.name).toBe('Instance');
    });

    it('a user manager of the organization reads its providers but does not change them', async () => {
      const m = await addMachineWithToken(server, orgA, { roles: ['ORG_USER_MANAGER'] });
      const manager = server.client(IdentityProviderService, { token: m.token });
      expect(
        await codeOf(manager.createIdentityProvider({ organizationId: orgA, name: 'X', config: oidcConfig() })),
      ).toBe(Code.PermissionDenied);
      expect(await codeOf(manager.updateIdentityProvider({ id: ofA, name: 'X' }))).toBe(Code.PermissionDenied);
      expect(await codeOf(manager.deleteIdentityProvider({ id: ofA }))).toBe(Code.PermissionDenied);
      const anonymous = server.client(IdentityProviderService, { token: null });
      expect(await codeOf(anonymous.getIdentityProvider({ id: ofA }))).toBe(Code.Unauthenticated);
    });
  });

  describe('validation names the field', () => {
    it('a name is required', async () => {
      const r = await refusal(admin.createIdentityProvider({ name: '  ', config: oidcConfig() }));
      expect(r.code).toBe(Code.InvalidArgument);
      expect(r.message).toContain('name');
    });

    it('a configuration is required', async () => {
      const r = await refusal(admin.createIdentityProvider({ name: 'No config' }));
      expect(r).toEqual({ code: Code.InvalidArgument, message: 'config is required' });
    });

    it('options must allow linking or creation, and auto-creation needs creation', async () => {
      const noWay = await refusal(
        admin.createIdentityProvider({
          name: 'Nobody',
          config: oidcConfig(),
          options: { isLinkingAllowed: false, isCreationAllowed: false },
        }),
      );
      expect(noWay.code).toBe(Code.InvalidArgument);
      expect(noWay.message).toContain('is_linking_allowed');
      const auto = await refusal(
        admin.createIdentityProvider({
          name: 'Auto',
          config: oidcConfig(),
          options: { isLinkingAllowed: true, isCreationAllowed: false, isAutoCreation: true },
        }),
      );
      expect(auto.code).toBe(Code.InvalidArgument);
      expect(auto.message).toContain('is_auto_creation');
      const linking = await refusal(
        admin.createIdentityProvider({
          name: 'Link',
          config: oidcConfig(),
          options: { isLinkingAllowed: false, isCreationAllowed: true, autoLinking: AutoLinkingOption.EMAIL },
        }),
      );
      expect(linking.code).toBe(Code.InvalidArgument);
      expect(linking.message).toContain('auto_linking');
    });

    it('an update with bad options changes nothing', async () => {
      const { id } = await admin.createIdentityProvider({ name: 'Stable', config: oidcConfig() });
      const r = await refusal(
        admin.updateIdentityProvider({ id, name: 'Changed', options: { isLinkingAllowed: false } }),
      );
      expect(r.code).toBe(Code.InvalidArgument);
      expect((await admin.getIdentityProvider({ id })).identityProvider?.name).toBe('Stable');
    });
  });
});
