import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../helpers/browser';
import { addProvider } from '../helpers/idp';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { startTestServer, type TestServer } from '../helpers/server';
import { type Slapd, startSlapd } from '../helpers/slapd';

/** The hosted login against a real OpenLDAP: the password is checked by a bind as the user. */
describe('hosted login through an LDAP directory', () => {
  let server: TestServer;
  let slapd: Slapd;
  let config: client.Configuration;
  let idpId: string;

  beforeAll(async () => {
    [server, slapd] = await Promise.all([startTestServer(), startSlapd()]);
    config = await addRelyingParty(server);
    idpId = (
      await addProvider(server, {
        name: 'Directory',
        spec: {
          kind: 'ldap',
          servers: [slapd.url],
          startTls: false,
          baseDn: slapd.baseDn,
          bindDn: slapd.bindDn,
          userObjectClasses: ['inetOrgPerson'],
          userFilters: ['uid', 'mail'],
          timeoutSeconds: 5,
          mapping: { id: 'uid' },
        },
        secrets: { bindPassword: slapd.bindPassword },
      })
    ).id;
  });
  afterAll(async () => {
    await slapd?.stop();
    await server?.stop();
  });

  async function ldapPage(browser: Browser) {
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
    const page = await browser.go(url);
    const ldap = await browser.submit(page, '/ui/login/idp/start', { idp: idpId });
    expect(ldap.url).toContain('/ui/login/ldap?');
    return { ldap, verifier };
  }

  it('the directory password signs alice in with a new account, then the same one', async () => {
    let sub = '';
    for (let round = 0; round < 2; round++) {
      const browser = new Browser(server.url);
      const { ldap, verifier } = await ldapPage(browser);
      const landed = await browser.submit(ldap, '/ui/login/ldap', { username: 'alice', password: 'alice-secret' });
      expect(landed.url).toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
      const tokens = await client.authorizationCodeGrant(config, new URL(landed.url), {
        pkceCodeVerifier: verifier,
        expectedState: 'st',
      });
      const claims = tokens.claims()!;
      expect(claims.amr).toContain('fed');
      if (round === 1) expect(claims.sub).toBe(sub);
      sub = claims.sub;
    }
  });

  it('a wrong password, an unknown user and filter injection all get the same refusal', async () => {
    for (const [username, password] of [
      ['alice', 'wrong'],
      ['nobody', 'alice-secret'],
      ['*', 'alice-secret'],
      ['alice)(uid=*', 'alice-secret'],
      ['*)(|(uid=*', 'bob-secret'],
      ['alice', ''],
    ]) {
      const browser = new Browser(server.url);
      const { ldap } = await ldapPage(browser);
      const page = await browser.submit(ldap, '/ui/login/ldap', { username, password });
      expect(page.url).toContain('/ui/login/ldap?');
      expect(page.url).toContain('error=invalid');
      expect(page.html).toContain('The login name or the password is wrong.');
    }
  });

  it('the provider form cannot name a provider the request does not offer', async () => {
    const browser = new Browser(server.url);
    const { url } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
    const page = await browser.go(url);
    const pressed = await browser.submit(page, '/ui/login/idp/start', { idp: 'no-such-provider' });
    expect(pressed.url).toContain('/ui/login/login?');
  });
});
