import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../helpers/rows';
import { startTestServer, type TestServer } from '../helpers/server';
import { convertToBody, portcullis, tempDir, writeExport } from './run-cli';

const EXPORT = resolve(import.meta.dirname, '../fixtures/keycloak-idps/acme-realm.json');
const id = (alias: string, org = 'org-1') => `${org}-idp-${alias}`;

function secretsFile(): string {
  const path = join(tempDir(), 'idp-secrets.json');
  writeFileSync(path, JSON.stringify({ github: 'gh-secret-from-the-side' }));
  return path;
}

describe('migrate keycloak: identity providers and federated identities', () => {
  it('converts the providers it can, reports the others, and links the users', async () => {
    const { org, users, stderr } = await convertToBody([`--realm=${EXPORT}`]);
    const byAlias = Object.fromEntries(org.idps.map((p: any) => [p.idpId, p]));
    expect(Object.keys(byAlias).sort()).toEqual([id('adfs'), id('corp-sso'), id('github')]);

    expect(byAlias[id('corp-sso')]).toEqual({
      idpId: id('corp-sso'),
      name: 'Corporate SSO',
      options: {
        isLinkingAllowed: true,
        isCreationAllowed: true,
        isAutoCreation: true,
        isAutoUpdate: true,
        autoLinking: 'NONE',
        storeTokens: false,
      },
      genericOidc: {
        clientId: 'acme-portal',
        clientSecret: '9c2f1e7a-corp-sso-secret',
        clientAuthMethod: 'CLIENT_AUTH_METHOD_POST',
        scopes: ['openid', 'profile', 'email'],
        issuer: 'https://sso.corp.example/realms/corp',
        useUserinfo: true,
        emailVerifiedByProvider: true,
      },
    });
    // link only, tokens kept; the masked secret is left out, not copied
    const gh = byAlias[id('github')];
    expect(gh.options).toMatchObject({ isCreationAllowed: false, isAutoCreation: false, storeTokens: true });
    expect(gh.github).toEqual({ clientId: 'Iv1.8a61f9b3a7aba766', scopes: [] });
    const saml = byAlias[id('adfs')].saml;
    expect(saml).toMatchObject({
      binding: 'SAML_BINDING_POST',
      withSignedRequest: true,
      nameIdFormat: 'SAML_NAME_ID_FORMAT_PERSISTENT_UNSPECIFIED',
      allowUnsignedAssertions: true,
    });
    expect(saml.metadataXml).toContain('entityID="http://adfs.acme.example/adfs/services/trust"');
    expect(saml.metadataXml).toContain('Location="https://adfs.acme.example/adfs/ls/"');
    expect(saml.metadataXml).toMatch(/<ds:X509Certificate>MII[A-Za-z0-9+/=]+<\/ds:X509Certificate>/);

    const userId = (name: string) => users.find((u) => u.user.userName === name)?.userId;
    expect(org.userLinks).toEqual([
      {
        userId: userId('alice'),
        idpId: id('corp-sso'),
        providedUserId: 'a1f0c3e2-77d5-4b8e-9c51-2d6f1e0a9b34',
        providedUserName: 'alice@corp.example',
      },
      {
        userId: userId('bob'),
        idpId: id('corp-sso'),
        providedUserId: 'b2e1d4f3-88e6-4c9f-8d62-3e7a2f1b0c45',
        providedUserName: 'bob@corp.example',
      },
      { userId: userId('bob'), idpId: id('github'), providedUserId: '5820134', providedUserName: 'bob-gh' },
      {
        userId: userId('erin'),
        idpId: id('adfs'),
        providedUserId: 'erin@acme.example',
        providedUserName: 'erin@acme.example',
      },
    ]);
    // bob has no password but signs in through his providers: no longer skipped as a federated user
    const bob = users.find((u) => u.user.userName === 'bob');
    expect(bob.user.hashedPassword).toBeUndefined();
    expect(users.map((u) => u.user.userName)).not.toContain('frank');

    expect(stderr).toContain('Identity providers: 3 converted, 3 not converted.');
    expect(stderr).toContain('not converted: google: disabled in Keycloak');
    expect(stderr).toContain('not converted: facebook: provider type facebook is not supported');
    expect(stderr).toMatch(/not converted: partner-jwt: client authentication private_key_jwt/);
    expect(stderr).toContain('Warning: identity provider github: clientSecret masked in the export');
    expect(stderr).toContain('User links: 4; users signing in only through a provider: 1');
    expect(stderr).toContain('Warning: 1 link(s) to facebook left out (provider not converted): carol');
    expect(stderr).toContain('Warning: 1 link(s) to google left out (provider not converted): dave');
    // In one file the users come before the providers: carol and dave were kept before that was known.
    expect(stderr).toContain('Warning: 2 user(s) imported without password whose providers were not converted');
    expect(stderr).toContain('no password credential: frank');
  });

  it('with the realm file first (kc.sh export --dir), users of unconverted providers only are skipped', async () => {
    const realm = JSON.parse(readFileSync(EXPORT, 'utf8'));
    const dir = tempDir();
    writeExport(dir, 'acme-realm.json', { ...realm, users: undefined });
    writeExport(dir, 'acme-users-0.json', { realm: 'acme', users: realm.users });
    const { users, org, stderr } = await convertToBody([`--realm=${dir}`]);
    expect(users.map((u) => u.user.userName).sort()).toEqual(['alice', 'bob', 'erin']);
    expect(org.userLinks).toHaveLength(4);
    expect(stderr).toContain('no password credential (identity provider not imported: facebook): carol');
    expect(stderr).toContain('no password credential (identity provider not imported: google): dave');
    expect(stderr).not.toContain('imported without password whose providers');
  });

  it('--idp-secrets fills in a masked secret', async () => {
    const { org, stderr } = await convertToBody([`--realm=${EXPORT}`, `--idp-secrets=${secretsFile()}`]);
    const gh = org.idps.find((p: any) => p.idpId === id('github'));
    expect(gh.github.clientSecret).toBe('gh-secret-from-the-side');
    expect(stderr).not.toContain('masked');
  });
});

describe('migrate keycloak --url: providers and links in a running server', () => {
  let server: TestServer;
  let tokenFile: string;
  beforeAll(async () => {
    server = await startTestServer();
    tokenFile = join(tempDir(), 'admin.pat');
    writeFileSync(tokenFile, `${server.pat}\n`);
  });
  afterAll(() => server?.stop());

  const upload = () =>
    portcullis([
      'migrate',
      'keycloak',
      '--org=acme',
      `--realm=${EXPORT}`,
      `--idp-secrets=${secretsFile()}`,
      `--url=${server.url}`,
      `--token-file=${tokenFile}`,
      '--batch-size=2',
    ]);

  it('creates the providers and the links; a re-run adds nothing', async () => {
    const first = await upload();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('import: 5 imported or already present, 3 provider(s), 4 link(s), 0 refused');
    const providers = await rows(
      server,
      "select id, type, template from identity_providers where org_id = 'acme' order by id",
    );
    expect(providers).toEqual([
      { id: id('adfs', 'acme'), type: 'SAML', template: 'GENERIC' },
      { id: id('corp-sso', 'acme'), type: 'OIDC', template: 'GENERIC' },
      { id: id('github', 'acme'), type: 'OAUTH', template: 'GITHUB' },
    ]);
    const links = await rows(
      server,
      `select u.username, l.idp_id, l.external_user_id from idp_links l join users u on u.id = l.user_id
        where l.org_id = 'acme' order by u.username, l.idp_id`,
    );
    expect(links.map((l) => `${l.username} ${l.idp_id} ${l.external_user_id}`)).toEqual([
      `alice ${id('corp-sso', 'acme')} a1f0c3e2-77d5-4b8e-9c51-2d6f1e0a9b34`,
      `bob ${id('corp-sso', 'acme')} b2e1d4f3-88e6-4c9f-8d62-3e7a2f1b0c45`,
      `bob ${id('github', 'acme')} 5820134`,
      `erin ${id('adfs', 'acme')} erin@acme.example`,
    ]);

    const events = await rows(server, 'select count(*)::int as n from events');
    const again = await upload();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('import: 5 imported or already present, 3 provider(s), 4 link(s), 0 refused');
    expect(await rows(server, 'select count(*)::int as n from events')).toEqual(events);
  });

  it('the body file imports too; only the provider whose secret was masked may be refused', async () => {
    // another organization than the one above: another name and other ids (both are unique)
    const { body } = await convertToBody([`--realm=${EXPORT}`, '--org-name=ACME from a file', '--id-prefix=file-']);
    const res = await server.fetch('/admin/v1/import', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const out = (await res.json()) as any;
    // Whether a provider without its client secret is refused is the protocol check's rule; if it is,
    // the provider and its link are reported, and nothing else is.
    for (const e of out.errors) expect(`${e.type} ${e.id}`).toMatch(/github/);
    const org = out.success.orgs[0];
    expect(org.idpIds).toEqual(expect.arrayContaining([`file-${id('corp-sso')}`, `file-${id('adfs')}`]));
    expect(org.userLinks.filter((l: any) => !l.idpId.endsWith('github'))).toHaveLength(3);
    const [{ n }] = await rows(server, "select count(*)::int as n from idp_links where org_id = 'org-1'");
    expect(n).toBe(org.userLinks.length);
  });
});
