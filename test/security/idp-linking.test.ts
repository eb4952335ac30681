import { Code } from '@connectrpc/connect';
import { and, eq } from 'drizzle-orm';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutoLinkingOption } from '../../gen/portcullis/idp/v2/identity_provider_pb';
import { IdentityProviderService } from '../../gen/portcullis/idp/v2/identity_provider_service_pb';
import { InstanceService } from '../../gen/portcullis/instance/v2/instance_service_pb';
import { SessionService } from '../../gen/portcullis/session/v2/session_service_pb';
import { UserService } from '../../gen/portcullis/user/v2/user_service_pb';
import { users } from '../../src/db/schema/index';
import { createAdministrator } from '../../src/domain/administrator/manage';
import { listIdpLinks } from '../../src/domain/idp/links';
import { Browser } from '../helpers/browser';
import { defaultOrgId, systemCtx } from '../helpers/context';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { addMachineWithToken } from '../helpers/machines';
import { unique } from '../helpers/names';
import { addOrg } from '../helpers/orgs';
import { startTestServer, type TestServer } from '../helpers/server';
import { signInAt, startUpstreamOidc, type UpstreamOidc } from '../helpers/upstream-oidc';
import { addUser } from '../helpers/users';

const API_SCOPE = 'urn:service:iam:org:project:id:api:aud';
const SUCCESS = 'https://login.example.com/idp/success';
const FAILURE = 'https://login.example.com/idp/failure';

/**
 * An organization owner runs its own OpenID Provider and registers it as its organization's identity
 * provider (org.write suffices). Whatever that upstream answers, it must never sign in or link anybody
 * the organization's owners do not cover: the instance administrator living in the organization, or a
 * user holding memberships in another organization.
 */
describe('an organization identity provider cannot reach users beyond its organization', () => {
  let server: TestServer;
  let evil: UpstreamOidc;
  let config: client.Configuration;
  let orgId: string;
  let owner: { userId: string; token: string };
  let adminId: string;
  let adminEmail: string;
  let idpId: string;

  beforeAll(async () => {
    server = await startTestServer();
    evil = await startUpstreamOidc({ redirectUris: [`${server.url}/idps/callback`] });
    orgId = await defaultOrgId(server);
    config = await addRelyingParty(server);
    const [admin] = await server.app.database.db
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(and(eq(users.username, 'admin'), eq(users.orgId, orgId)));
    adminId = admin.id;
    adminEmail = admin.email!;
    owner = await addMachineWithToken(server, orgId, { username: 'org-owner', roles: ['ORG_OWNER'] });
    // the attack's first step works: the org owner registers its own upstream for its organization
    const created = await server.client(IdentityProviderService, { token: owner.token }).createIdentityProvider({
      organizationId: orgId,
      name: 'Evil Upstream',
      options: {
        isLinkingAllowed: true,
        isCreationAllowed: true,
        isAutoCreation: false,
        autoLinking: AutoLinkingOption.EMAIL,
      },
      config: {
        case: 'genericOidc',
        value: {
          issuer: evil.issuer,
          clientId: evil.client.clientId,
          clientSecret: evil.client.clientSecret,
          scopes: ['openid', 'profile', 'email'],
        },
      },
    });
    idpId = created.id;
  });
  afterAll(async () => {
    await evil?.stop();
    await server?.stop();
  });

  /** The hosted login through the evil upstream as `sub`, up to the page our callback leads to. */
  async function throughEvil(sub: string) {
    const browser = new Browser(server.url);
    const { url, verifier } = await pkceAuthUrl(config, {
      scope: `openid profile email ${API_SCOPE} urn:service:iam:org:id:${orgId}`,
      state: 'st',
    });
    const page = await browser.go(url);
    const pressed = await browser.submit(page, '/ui/login/idp/start', { idp: idpId });
    expect(pressed.url.startsWith(evil.url)).toBe(true);
    const params = await signInAt(pressed.url, sub);
    return { browser, verifier, page: await browser.go(`/idps/callback?${params}`) };
  }

  const linksOf = async (userId: string) => (await listIdpLinks(systemCtx(server), { userId })).items;

  it("the upstream answering with the instance administrator's verified email neither links nor signs in", async () => {
    const sub = unique('evil-admin');
    evil.addAccount({ sub, email: adminEmail, email_verified: true, given_name: 'I', family_name: 'Am' });
    const { browser, verifier, page } = await throughEvil(sub);
    // the administrator's account is not even proposed: at most a new account of the organization
    expect(page.html).not.toContain('Link your account');
    expect(page.url).not.toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
    // posting the link action anyway (with no password, and with a guessed one) links nothing
    const forged = { html: page.html.replace('action="/ui/login/idp/create"', 'action="/ui/login/idp/link"') };
    for (const password of ['', 'Guessed-Passw0rd!']) {
      const linked = await browser.submit(forged, '/ui/login/idp/link', { password });
      expect(linked.url).not.toMatch(/code=/);
    }
    // nor does taking the offered new account with the administrator's address
    const created = await browser.submit(page, '/ui/login/idp/create', {});
    if (created.url.includes('code=')) {
      const tokens = await client.authorizationCodeGrant(config, new URL(created.url), {
        pkceCodeVerifier: verifier,
        expectedState: 'st',
      });
      expect(tokens.claims()?.sub).not.toBe(adminId);
    }
    expect(await linksOf(adminId)).toHaveLength(0);
  });

  it('a link to a plain user stops signing in once that user becomes an instance administrator', async () => {
    const plain = await addUser(server, { email: `${unique('plain')}@example.com` });
    const sub = unique('evil-plain');
    await server.client(UserService, { token: owner.token }).addIDPLink({
      userId: plain.id,
      idpLink: { idpId, userId: sub, userName: sub },
    });
    evil.addAccount({ sub, email: `${sub}@evil.test`, email_verified: true, given_name: 'P', family_name: 'L' });
    // while the user is within the organization's reach, the provider signs them in
    const first = await throughEvil(sub);
    expect(first.page.url).toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
    const tokens = await client.authorizationCodeGrant(config, new URL(first.page.url), {
      pkceCodeVerifier: first.verifier,
      expectedState: 'st',
    });
    expect(tokens.claims()?.sub).toBe(plain.id);

    await createAdministrator(systemCtx(server), {
      userId: plain.id,
      resource: { instance: true },
      roles: ['IAM_OWNER'],
    });
    const again = await throughEvil(sub);
    expect(again.page.url).not.toMatch(/code=/);
    expect(again.page.res.status).toBeGreaterThanOrEqual(400);
    expect(again.page.html).toMatch(/cannot sign in this user/);
  });

  it("a custom login UI's session check refuses the same link, and AddIDPLink cannot make one", async () => {
    const privileged = await addUser(server, { email: `${unique('priv')}@example.com` });
    const sub = unique('evil-ui');
    await server.client(UserService).addIDPLink({ userId: privileged.id, idpLink: { idpId, userId: sub } });
    await createAdministrator(systemCtx(server), {
      userId: privileged.id,
      resource: { instance: true },
      roles: ['IAM_OWNER_VIEWER'],
    });
    evil.addAccount({ sub, email: `${sub}@evil.test`, email_verified: true });
    const started = await server.client(UserService).startIdentityProviderIntent({
      idpId,
      content: { case: 'urls', value: { successUrl: SUCCESS, failureUrl: FAILURE } },
    });
    const params = await signInAt(started.nextStep.value as string, sub);
    const res = await fetch(`${server.url}/idps/callback?${params}`, { redirect: 'manual' });
    const token = new URL(res.headers.get('location')!).searchParams.get('token')!;
    const check = { idpIntent: { idpIntentId: started.idpIntentId, idpIntentToken: token } };
    await expect(server.client(SessionService).createSession({ checks: check })).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });

    // even an instance administrator cannot link the organization's provider to an instance administrator
    const sub2 = unique('evil-direct');
    await expect(
      server.client(UserService).addIDPLink({ userId: adminId, idpLink: { idpId, userId: sub2 } }),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
    expect(await linksOf(adminId)).toHaveLength(0);
  });

  it('a user holding a membership in another organization is out of reach as well', async () => {
    const other = await addOrg(server, unique('Other Org'));
    const member = await addUser(server, { email: `${unique('member')}@example.com` });
    await createAdministrator(systemCtx(server), {
      userId: member.id,
      resource: { orgId: other.id },
      roles: ['ORG_USER_MANAGER'],
    });
    await expect(
      server.client(UserService).addIDPLink({ userId: member.id, idpLink: { idpId, userId: unique('x') } }),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
  });

  it('re-pointing the provider removes the links of users the caller does not cover; covered ones stay', async () => {
    const covered = await addUser(server, { email: `${unique('cov')}@example.com` });
    const outside = await addUser(server, { email: `${unique('out')}@example.com` });
    const idps = server.client(IdentityProviderService, { token: owner.token });
    await server.client(UserService).addIDPLink({ userId: covered.id, idpLink: { idpId, userId: unique('c') } });
    await server.client(UserService).addIDPLink({ userId: outside.id, idpLink: { idpId, userId: unique('o') } });
    // the second user gains a membership elsewhere after the link was made
    const other = await addOrg(server, unique('Elsewhere'));
    await createAdministrator(systemCtx(server), {
      userId: outside.id,
      resource: { orgId: other.id },
      roles: ['ORG_OWNER'],
    });
    // a change of name or options keeps every link
    await idps.updateIdentityProvider({ id: idpId, name: 'Evil Upstream (renamed)' });
    expect(await linksOf(outside.id)).toHaveLength(1);
    const second = await startUpstreamOidc({ redirectUris: [`${server.url}/idps/callback`] });
    try {
      await idps.updateIdentityProvider({
        id: idpId,
        config: {
          case: 'genericOidc',
          value: { issuer: second.issuer, clientId: second.client.clientId, scopes: ['openid', 'email'] },
        },
      });
    } finally {
      await second.stop();
    }
    expect(await linksOf(outside.id)).toHaveLength(0);
    expect(await linksOf(covered.id)).toHaveLength(1);
  });

  it('only the instance may trust an upstream to link by verified email without the password', async () => {
    const idps = server.client(IdentityProviderService, { token: owner.token });
    const attempt = idps.createIdentityProvider({
      organizationId: orgId,
      name: 'Trusting',
      options: { isLinkingAllowed: true, autoLinking: AutoLinkingOption.EMAIL, trustVerifiedEmail: true },
      config: { case: 'genericOidc', value: { issuer: evil.issuer, clientId: 'x', scopes: ['openid'] } },
    });
    await expect(attempt).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(
      idps.updateIdentityProvider({
        id: idpId,
        options: { isLinkingAllowed: true, autoLinking: AutoLinkingOption.EMAIL, trustVerifiedEmail: true },
      }),
    ).rejects.toMatchObject({ code: Code.InvalidArgument });
    // and the administrator's account still cannot be reached: the instance stays the org owner's limit
    await expect(server.client(InstanceService, { token: owner.token }).getInstanceSettings({})).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
  });
});

/**
 * Any linking to an existing account proves that account's credential first: an upstream's verified
 * email only proposes the account. An instance provider its administrators set to trust the upstream's
 * verified emails is the one exception.
 */
describe('linking to an existing account proves its credential', () => {
  let server: TestServer;
  let upstream: UpstreamOidc;
  let config: client.Configuration;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startUpstreamOidc({ redirectUris: [`${server.url}/idps/callback`] });
    config = await addRelyingParty(server);
  });
  afterAll(async () => {
    await upstream?.stop();
    await server?.stop();
  });

  async function through(idpId: string, sub: string) {
    const browser = new Browser(server.url);
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
    const pressed = await browser.submit(await browser.go(url), '/ui/login/idp/start', { idp: idpId });
    const params = await signInAt(pressed.url, sub);
    return { browser, page: await browser.go(`/idps/callback?${params}`) };
  }

  const createIdp = (trustVerifiedEmail: boolean) =>
    server.client(IdentityProviderService).createIdentityProvider({
      name: unique('Instance upstream'),
      options: { isLinkingAllowed: true, autoLinking: AutoLinkingOption.EMAIL, trustVerifiedEmail },
      config: {
        case: 'genericOidc',
        value: {
          issuer: upstream.issuer,
          clientId: upstream.client.clientId,
          clientSecret: upstream.client.clientSecret,
          scopes: ['openid', 'profile', 'email'],
        },
      },
    });

  it("an instance provider's verified email still needs the account's password by default", async () => {
    const { id } = await createIdp(false);
    const local = await addUser(server, { email: `${unique('v')}@example.com` });
    const sub = unique('s');
    upstream.addAccount({ sub, email: (await emailOf(server, local.id))!, email_verified: true });
    const { browser, page } = await through(id, sub);
    expect(page.html).toContain('Link your account');
    expect(page.html).toContain('type="password"');
    const refused = await browser.submit(page, '/ui/login/idp/link', { password: 'Wrong-Passw0rd!' });
    expect(refused.url).not.toMatch(/code=/);
    expect((await listIdpLinks(systemCtx(server), { userId: local.id })).items).toHaveLength(0);
    const linked = await browser.submit(page, '/ui/login/idp/link', { password: local.password });
    expect(linked.url).toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
    expect((await listIdpLinks(systemCtx(server), { userId: local.id })).items).toHaveLength(1);
  });

  it('an instance provider set to trust verified emails links after a confirmation alone', async () => {
    const { id } = await createIdp(true);
    const local = await addUser(server, { email: `${unique('t')}@example.com` });
    const sub = unique('s');
    upstream.addAccount({ sub, email: (await emailOf(server, local.id))!, email_verified: true });
    const { browser, page } = await through(id, sub);
    expect(page.html).toContain('Link your account');
    expect(page.html).not.toContain('type="password"');
    const linked = await browser.submit(page, '/ui/login/idp/link', {});
    expect(linked.url).toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
  });
});

async function emailOf(server: TestServer, userId: string) {
  const [row] = await server.app.database.db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  return row?.email;
}
