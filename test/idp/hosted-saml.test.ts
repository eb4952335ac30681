import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listIdpLinks } from '../../src/domain/idp/links';
import { Browser, decodeHtml } from '../helpers/browser';
import { systemCtx } from '../helpers/context';
import { addProvider } from '../helpers/idp';
import { addRelyingParty, pkceAuthUrl } from '../helpers/login-flow';
import { unique } from '../helpers/names';
import { createSamlIdp, type SamlAuthnRequest, type SamlTestIdp } from '../helpers/saml-idp';
import { startTestServer, type TestServer } from '../helpers/server';

/** The fields of the (first) form of a page. */
function formFields(html: string): { action: string; fields: Record<string, string> } {
  const action = decodeHtml(/<form[^>]*action="([^"]+)"/.exec(html)![1]);
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
    fields[m[1]] = decodeHtml(m[2]);
  return { action, fields };
}

/**
 * The hosted login through a real SAML IdP (samlify): HTTP-Redirect and HTTP-POST AuthnRequests,
 * signed assertions posted to the assertion consumer service, and the attacks on that endpoint.
 */
describe('hosted login through a SAML IdP', () => {
  let server: TestServer;
  let config: client.Configuration;
  const providers: Record<'redirect' | 'post', { id: string; idp: SamlTestIdp }> = {} as never;

  beforeAll(async () => {
    server = await startTestServer();
    config = await addRelyingParty(server);
    for (const binding of ['redirect', 'post'] as const) {
      const idp = createSamlIdp({ wantAuthnRequestsSigned: true, entityId: `https://idp.test/${binding}` });
      const { id } = await addProvider(server, {
        name: `SAML ${binding}`,
        spec: {
          kind: 'saml',
          metadataXml: idp.idpMetadataXml,
          binding,
          signRequests: true,
          nameIdFormat: 'persistent',
          allowUnsignedAssertions: false,
          mapping: {},
        },
      });
      // the IdP's administrator registers Portcullis by the SP metadata it publishes
      const metadata = await fetch(`${server.url}/idps/${id}/saml/metadata`);
      expect(metadata.headers.get('content-type')).toContain('application/samlmetadata+xml');
      idp.trustSp(await metadata.text());
      providers[binding] = { id, idp };
    }
  });
  afterAll(() => server?.stop());

  /** Presses the provider's button; returns the AuthnRequest as the IdP receives it. */
  async function authnRequest(binding: 'redirect' | 'post', browser: Browser) {
    const { url, verifier } = await pkceAuthUrl(config, { scope: 'openid', state: 'st' });
    const page = await browser.go(url);
    const pressed = await browser.submit(page, '/ui/login/idp/start', { idp: providers[binding].id });
    let request: SamlAuthnRequest;
    let relayState: string;
    if (binding === 'redirect') {
      expect(pressed.url.startsWith('https://idp.test/sso?SAMLRequest=')).toBe(true);
      request = { binding, url: pressed.url };
      relayState = new URL(pressed.url).searchParams.get('RelayState')!;
    } else {
      const form = formFields(pressed.html);
      expect(form.action).toBe('https://idp.test/sso');
      request = { binding, fields: form.fields };
      relayState = form.fields.RelayState;
    }
    return { request, relayState, verifier };
  }

  /** What the IdP's page does: the browser posts the SAMLResponse to the ACS; our page re-posts it. */
  async function postToAcs(browser: Browser, id: string, fields: Record<string, string>) {
    const acs = `/idps/${id}/saml/acs`;
    const body = new URLSearchParams(fields);
    const first = await browser.go(acs, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return browser.submit(first, acs, {});
  }

  for (const binding of ['redirect', 'post'] as const) {
    it(`HTTP-${binding} AuthnRequest, signed assertion: a JIT account, then the same account again`, async () => {
      const nameId = unique('saml');
      const user = {
        nameId,
        attributes: { email: `${nameId}@idp.test`, givenName: 'Sam', surname: 'Ell' },
      };
      let sub = '';
      for (let round = 0; round < 2; round++) {
        const browser = new Browser(server.url);
        const { request, relayState, verifier } = await authnRequest(binding, browser);
        const SAMLResponse = await providers[binding].idp.respond(request, user);
        const landed = await postToAcs(browser, providers[binding].id, { SAMLResponse, RelayState: relayState });
        expect(landed.url).toMatch(/^https:\/\/rp\.example\.com\/cb\?code=/);
        const claims = (
          await client.authorizationCodeGrant(config, new URL(landed.url), {
            pkceCodeVerifier: verifier,
            expectedState: 'st',
          })
        ).claims()!;
        expect(claims.amr).toContain('fed');
        if (round === 1) expect(claims.sub).toBe(sub);
        sub = claims.sub;
      }
      const links = await listIdpLinks(systemCtx(server), { userId: sub });
      expect(links.items.map((l) => l.externalUserId)).toEqual([nameId]);
    });
  }

  it('a replayed SAML response signs nobody in', async () => {
    const browser = new Browser(server.url);
    const { request, relayState } = await authnRequest('post', browser);
    const SAMLResponse = await providers.post.idp.respond(request, {
      nameId: unique('replay'),
      attributes: { email: 'replay@idp.test', givenName: 'R', surname: 'P' },
    });
    const fields = { SAMLResponse, RelayState: relayState };
    const first = await postToAcs(browser, providers.post.id, fields);
    expect(first.url).toMatch(/^https:\/\/rp\.example\.com/);
    const replay = await postToAcs(browser, providers.post.id, fields);
    expect(replay.res.status).toBe(400);
    expect(replay.html).toContain('unknown, expired or already finished');
  });

  it('an assertion for another audience is refused and the sign-in fails', async () => {
    const browser = new Browser(server.url);
    const { request, relayState } = await authnRequest('redirect', browser);
    const SAMLResponse = await providers.redirect.idp.respond(
      request,
      { nameId: unique('aud'), attributes: { email: 'aud@idp.test' } },
      { audience: 'https://another-sp.test/metadata' },
    );
    const page = await postToAcs(browser, providers.redirect.id, { SAMLResponse, RelayState: relayState });
    expect(page.res.status).toBe(400);
    expect(page.url.startsWith('https://rp.example.com')).toBe(false);
    expect(page.html).toMatch(/audience/i);
  });

  it('a response for another sign-in (its RelayState) is refused: InResponseTo must match', async () => {
    const browser = new Browser(server.url);
    const mine = await authnRequest('redirect', browser);
    const other = await authnRequest('redirect', new Browser(server.url));
    const SAMLResponse = await providers.redirect.idp.respond(other.request, {
      nameId: unique('swap'),
      attributes: { email: 'swap@idp.test' },
    });
    const page = await postToAcs(browser, providers.redirect.id, { SAMLResponse, RelayState: mine.relayState });
    expect(page.res.status).toBe(400);
    expect(page.url.startsWith('https://rp.example.com')).toBe(false);
  });
});
