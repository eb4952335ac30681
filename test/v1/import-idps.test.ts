import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../helpers/rows';
import { startTestServer, type TestServer } from '../helpers/server';
import { human, post } from './helpers';

const uniq = () => `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
const SECRET = 'upstream-client-secret-4711';

const oidc = (idpId: string, extra: Record<string, unknown> = {}) => ({
  idpId,
  name: 'Corporate SSO',
  options: { isLinkingAllowed: true, isCreationAllowed: true, isAutoCreation: true, autoLinking: 'EMAIL' },
  genericOidc: {
    issuer: 'https://sso.example.com/realms/corp',
    clientId: 'portcullis',
    clientSecret: SECRET,
    scopes: ['openid', 'profile', 'email'],
    mapping: { username: 'preferred_username' },
  },
  ...extra,
});

const errorsOf = (body: any) =>
  (body.errors as { type: string; id: string; message: string }[]).map((e) => `${e.type} ${e.id} ${e.message}`);

describe('POST /admin/v1/import: identity providers and user links', () => {
  let server: TestServer;
  const id = uniq();
  const orgA = `ia${id}`;
  const orgB = `ib${id}`;
  const idp = `idp${id}`;
  const gh = `gh${id}`;
  const legacy = `legacy${id}`;
  const idpB = `idpb${id}`;
  const userA1 = `ua1${id}`;
  const userA2 = `ua2${id}`;
  const userB = `ub${id}`;

  /** Organization A: three providers (one v1 oidcIdps item), bad ones, two users and their links. */
  const bodyA = () => ({
    dataOrgs: {
      orgs: [
        {
          orgId: orgA,
          org: { name: `IdP import ${id}` },
          humanUsers: [human(userA1, `ada${id}`), human(userA2, `bob${id}`)],
          machineUsers: [{ userId: `m${id}`, user: { userName: `robot${id}`, name: 'Robot' } }],
          idps: [
            oidc(idp),
            { idpId: gh, name: 'GitHub', github: { clientId: 'gh-client', clientSecret: SECRET } },
            // no configuration / two configurations / an option that does not exist / someone else's id
            { idpId: `none${id}`, name: 'Nothing' },
            { ...oidc(`two${id}`), github: { clientId: 'x', clientSecret: 'y' } },
            oidc(`badopt${id}`, { options: { autoLinking: 'PHONE' } }),
            oidc(idpB),
          ],
          oidcIdps: [
            {
              idpId: legacy,
              details: {
                name: 'Legacy OIDC',
                issuer: 'https://legacy.example.com',
                clientId: 'legacy-client',
                clientSecret: SECRET,
                scopes: ['openid'],
                displayNameMapping: 'OIDC_MAPPING_FIELD_PREFERRED_USERNAME',
                usernameMapping: 'OIDC_MAPPING_FIELD_EMAIL',
                autoRegister: true,
              },
            },
          ],
          userLinks: [
            { userId: userA1, idpId: idp, providedUserId: 'sub-ada', providedUserName: 'ada@corp' },
            { userId: userA1, idpId: gh, providedUserId: '1001', providedUserName: 'ada-gh' },
            { userId: userA2, idpId: legacy, providedUserId: 'sub-bob', providedUserName: 'bob' },
            // the same upstream account for another user, an unknown provider, an unknown user
            { userId: userA2, idpId: idp, providedUserId: 'sub-ada', providedUserName: 'ada@corp' },
            { userId: userA2, idpId: `missing${id}`, providedUserId: 'x', providedUserName: 'x' },
            { userId: `nobody${id}`, idpId: idp, providedUserId: 'y', providedUserName: 'y' },
            // ATTACK: another organization's user, another organization's provider
            { userId: userB, idpId: idp, providedUserId: 'sub-mallory', providedUserName: 'mallory' },
            { userId: userA2, idpId: idpB, providedUserId: 'sub-b', providedUserName: 'b' },
            // a machine user signs in with keys, not through providers
            { userId: `m${id}`, idpId: idp, providedUserId: 'sub-robot' },
            // ATTACK: organization B's user to organization B's provider, from organization A's body
            { userId: userB, idpId: idpB, providedUserId: 'sub-evil', providedUserName: 'evil' },
          ],
        },
      ],
    },
  });

  const expectedErrors = [
    `idp none${id}`,
    `idp two${id}`,
    `idp badopt${id}`,
    `idp ${idpB}`,
    `user_link ${userA2}_${idp}_sub-ada`,
    `user_link ${userA2}_missing${id}_x`,
    `user_link nobody${id}_${idp}_y`,
    `user_link ${userB}_${idp}_sub-mallory`,
    `user_link ${userA2}_${idpB}_sub-b`,
    `user_link ${userB}_${idpB}_sub-evil`,
    `user_link m${id}_${idp}_sub-robot`,
  ];

  beforeAll(async () => {
    server = await startTestServer();
    // Organization B already has a user and a provider.
    const b = await post(server, '/admin/v1/import', {
      dataOrgs: {
        orgs: [
          { orgId: orgB, org: { name: `Other ${id}` }, humanUsers: [human(userB, `mal${id}`)], idps: [oidc(idpB)] },
        ],
      },
    });
    expect(b.body.errors).toEqual([]);
    expect(b.body.success.orgs[0].idpIds).toEqual([idpB]);
  });
  afterAll(() => server?.stop());

  it('creates the providers and links; every bad item is one error entry; the rest is imported', async () => {
    const { status, body } = await post(server, '/admin/v1/import', bodyA());
    expect(status).toBe(200);
    const org = body.success.orgs[0];
    expect(org.humanUserIds).toEqual([userA1, userA2]);
    expect(org.idpIds.sort()).toEqual([gh, idp, legacy].sort());
    expect(org.userLinks).toEqual([
      { userId: userA1, idpId: idp, providedUserId: 'sub-ada' },
      { userId: userA1, idpId: gh, providedUserId: '1001' },
      { userId: userA2, idpId: legacy, providedUserId: 'sub-bob' },
    ]);
    const errors = errorsOf(body);
    expect(errors.map((e) => e.split(' ').slice(0, 2).join(' ')).sort()).toEqual([...expectedErrors].sort());
    const keyOf = (prefix: string) => errors.find((e) => e.startsWith(prefix))!;
    expect(keyOf(`idp ${idpB}`)).toMatch(/Errors\.IdP\.AlreadyExisting$/);
    expect(keyOf(`idp none${id}`)).toMatch(/Errors\.IdP\.Invalid$/);
    expect(keyOf(`idp badopt${id}`)).toMatch(/Errors\.IdP\.Invalid$/);
    expect(keyOf(`user_link ${userA2}_${idp}_sub-ada`)).toMatch(/Errors\.IdP\.LinkExists$/);
    expect(keyOf(`user_link ${userA2}_missing`)).toMatch(/Errors\.IdP\.NotFound$/);
    expect(keyOf(`user_link nobody`)).toMatch(/Errors\.User\.NotFound$/);
    expect(keyOf(`user_link m${id}_`)).toMatch(/Errors\.User\.NotHuman$/);
    expect(keyOf(`user_link ${userB}_${idpB}`)).toMatch(/Errors\.User\.NotFound$/);
    expect(keyOf(`user_link ${userB}_`)).toMatch(/Errors\.User\.NotFound$/);
    expect(keyOf(`user_link ${userA2}_${idpB}`)).toMatch(/Errors\.IdP\.NotFound$/);

    const providers = await rows(
      server,
      `select id, org_id, name, type, template, config, options, secrets from identity_providers
        where org_id in ('${orgA}', '${orgB}') order by id`,
    );
    expect(providers.map((p) => [p.id, p.org_id, p.type, p.template])).toEqual(
      [
        [gh, orgA, 'OAUTH', 'GITHUB'],
        [idp, orgA, 'OIDC', 'GENERIC'],
        [idpB, orgB, 'OIDC', 'GENERIC'],
        [legacy, orgA, 'OIDC', 'GENERIC'],
      ].sort((x, y) => x[0].localeCompare(y[0])),
    );
    const main = providers.find((p) => p.id === idp)!;
    expect(main.config).toMatchObject({
      kind: 'generic_oidc',
      issuer: 'https://sso.example.com/realms/corp',
      clientId: 'portcullis',
      clientAuth: 'client_secret_basic',
      mapping: { username: 'preferred_username' },
    });
    expect(main.options).toMatchObject({ isAutoCreation: true, autoLinking: 'EMAIL' });
    // The client secret is stored, encrypted: never in the clear, never in the configuration.
    expect(main.secrets).toBeTruthy();
    expect(JSON.stringify(providers)).not.toContain(SECRET);
    const old = providers.find((p) => p.id === legacy)!;
    expect(old.config).toMatchObject({
      issuer: 'https://legacy.example.com',
      mapping: { displayName: 'preferred_username', username: 'email' },
    });
    expect(old.options).toMatchObject({ isAutoCreation: true });

    const links = await rows(
      server,
      `select idp_id, external_user_id, external_username, user_id, org_id from idp_links
        where org_id in ('${orgA}', '${orgB}') order by user_id, idp_id`,
    );
    expect(links).toEqual(
      [
        { idp_id: idp, external_user_id: 'sub-ada', external_username: 'ada@corp', user_id: userA1, org_id: orgA },
        { idp_id: gh, external_user_id: '1001', external_username: 'ada-gh', user_id: userA1, org_id: orgA },
        { idp_id: legacy, external_user_id: 'sub-bob', external_username: 'bob', user_id: userA2, org_id: orgA },
      ].sort((x, y) => x.user_id.localeCompare(y.user_id) || x.idp_id.localeCompare(y.idp_id)),
    );
    // The attacks left nothing: no link of organization B's user, none to organization B's provider.
    expect(await rows(server, `select 1 from idp_links where user_id = '${userB}' or idp_id = '${idpB}'`)).toEqual([]);
  });

  it('records the events the domain records', async () => {
    const added = await post(server, '/admin/v1/events/_search', {
      eventTypes: ['org.idp.added'],
      resourceOwner: orgA,
    });
    expect(added.body.events.map((e: any) => e.aggregate.id)).toEqual([orgA, orgA, orgA]);
    const linked = await post(server, '/admin/v1/events/_search', {
      eventTypes: ['user.human.idp.link.added'],
      resourceOwner: orgA,
    });
    expect(linked.body.events.map((e: any) => e.aggregate.id).sort()).toEqual([userA1, userA1, userA2].sort());
  });

  it('a re-run adds nothing and reports the same items', async () => {
    const before = await rows(server, 'select count(*)::int as n from events');
    const { body } = await post(server, '/admin/v1/import', bodyA());
    const org = body.success.orgs[0];
    expect(org.idpIds.sort()).toEqual([gh, idp, legacy].sort());
    expect(org.userLinks).toHaveLength(3);
    const errors = errorsOf(body).map((e) => e.split(' ').slice(0, 2).join(' '));
    expect(errors.sort()).toEqual([`org ${orgA}`, ...expectedErrors].sort());
    expect(await rows(server, 'select count(*)::int as n from events')).toEqual(before);
    expect(await rows(server, `select count(*)::int as n from idp_links where org_id = '${orgA}'`)).toEqual([{ n: 3 }]);
  });

  it('a provider id taken by another organization or a removed provider is refused, the rest goes on', async () => {
    const orgC = `ic${id}`;
    const { body } = await post(server, '/admin/v1/import', {
      dataOrgs: {
        orgs: [
          {
            orgId: orgC,
            org: { name: `Third ${id}` },
            humanUsers: [human(`uc${id}`, `cy${id}`)],
            idps: [oidc(idp), oidc(`own${id}`), oidc(`own${id}`)],
            userLinks: [{ userId: `uc${id}`, idpId: idp, providedUserId: 'sub-cy' }],
          },
        ],
      },
    });
    expect(body.success.orgs[0].idpIds).toEqual([`own${id}`]);
    expect(errorsOf(body).map((e) => e.split(' ').slice(0, 2).join(' ') + e.slice(e.lastIndexOf(' ')))).toEqual([
      `idp ${idp} Message=Errors.IdP.AlreadyExisting`,
      `idp own${id} Message=Errors.IdP.AlreadyExisting`,
      `user_link uc${id}_${idp}_sub-cy Message=Errors.IdP.NotFound`,
    ]);
  });
});
