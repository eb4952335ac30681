import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LOGIN_POLICY, type LoginPolicy } from '../../src/domain/policy/login-policy';
import { setDefaultLoginSettings } from '../../src/domain/policy/commands';
import { Browser } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { addOidcUpstream } from '../helpers/idp';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { unique } from '../helpers/names';
import { addOrg } from '../helpers/orgs';
import { startTestServer, type TestServer } from '../helpers/server';
import { signInAt, startUpstreamOidc, type UpstreamOidc } from '../helpers/upstream-oidc';
import { addUser } from '../helpers/users';

/** The login policy over external sign-ins: which providers are offered, and MFA after them. */
describe('login policy and external identity providers', () => {
  let server: TestServer;
  let upstream: UpstreamOidc;
  let config: client.Configuration;
  let idpId: string;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startUpstreamOidc({ redirectUris: [`${server.url}/idps/callback`] });
    config = await addRelyingParty(server);
    idpId = (await addOidcUpstream(server, upstream)).id;
  });
  afterAll(async () => {
    await upstream?.stop();
    await server?.stop();
  });

  const policy = (change: Partial<LoginPolicy>) =>
    setDefaultLoginSettings(systemCtx(server), { ...DEFAULT_LOGIN_POLICY, ...change });

  async function externalSignIn(extra: Record<string, string> = {}) {
    const sub = unique('pol');
    upstream.addAccount({
      sub,
      email: `${sub}@upstream.test`,
      email_verified: true,
      given_name: 'P',
      family_name: 'O',
    });
    const browser = new Browser(server.url);
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 'st', ...extra });
    const page = await browser.go(url);
    const pressed = await browser.submit(page, '/ui/login/idp/start', { idp: idpId });
    const params = await signInAt(pressed.url, sub);
    return browser.go(`/idps/callback?${params}`);
  }

  async function passwordSignIn() {
    const user = await addUser(server);
    const browser = new Browser(server.url);
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
    let page = await browser.go(url);
    page = await browser.submit(page, '/ui/login/login', { loginName: user.username });
    return browser.submit(page, '/ui/login/password', { password: user.password });
  }

  it('force_mfa_local_only: a local sign-in must set up a second factor, an external one is exempt', async () => {
    await policy({ forceMfaLocalOnly: true, mfaInitSkipLifetimeSeconds: 0 });
    expect((await passwordSignIn()).url).toContain('/ui/login/mfa-setup');
    expect((await externalSignIn()).url).toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
  });

  it('force_mfa: the external sign-in is followed by the second factor set-up too', async () => {
    await policy({ forceMfa: true, mfaInitSkipLifetimeSeconds: 0 });
    expect((await externalSignIn()).url).toContain('/ui/login/mfa-setup');
  });

  it('allow_external_idp off: no provider button, and a forged button press goes nowhere', async () => {
    await policy({ allowExternalIdp: false });
    const browser = new Browser(server.url);
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
    const page = await browser.go(url);
    expect(page.html).not.toContain('/ui/login/idp/start');
    const forged = await browser.go('/ui/login/idp/start', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        authRequest: /name="authRequest" value="([^"]+)"/.exec(page.html)![1],
        csrf: /name="csrf" value="([^"]+)"/.exec(page.html)![1],
        idp: idpId,
      }),
    });
    expect(forged.url).toContain('/ui/login/login?');
    await policy({});
  });

  it("an organization's provider is offered only in that organization's scope", async () => {
    await policy({});
    const [orgA, orgB] = [await addOrg(server, unique('A')), await addOrg(server, unique('B'))];
    const own = await addOidcUpstream(server, upstream, { name: 'Org B upstream', orgId: orgB.id });
    const buttonsIn = async (orgId?: string) => {
      const scope = orgId ? `openid urn:service:iam:org:id:${orgId}` : 'openid';
      const { url } = await pkceAuthUrl(config, { scope, state: 'st' });
      return (await new Browser(server.url).go(url)).html;
    };
    expect(await buttonsIn(orgB.id)).toContain(own.id);
    expect(await buttonsIn(orgA.id)).not.toContain(own.id);
    expect(await buttonsIn()).not.toContain(own.id);
    expect(await buttonsIn(orgA.id)).toContain(idpId);
  });
});
