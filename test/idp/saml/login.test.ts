import { describe, expect, it } from 'vitest';
import { completeLogin, startLogin } from '../../../src/domain/idp/saml/login';
import { createSamlIdp, type SamlAuthnRequest, samlProviderFor } from '../../helpers/saml-idp';

const alice = {
  nameId: 'alice-7f3a',
  nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  attributes: {
    'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress': 'alice@example.com',
    'urn:oid:2.5.4.42': 'Alice',
    'urn:oid:2.5.4.4': 'Liddell',
    displayName: 'Alice Liddell',
    uid: 'alice',
    memberOf: ['staff', 'admins'],
  },
};

function requestOf(start: Awaited<ReturnType<typeof startLogin>>): SamlAuthnRequest {
  if (start.redirectUrl) return { binding: 'redirect', url: start.redirectUrl };
  if (start.postForm) return { binding: 'post', fields: start.postForm.fields };
  throw new Error('startLogin returned neither a redirect nor a form');
}

describe('SAML sign-in through a real IdP', () => {
  for (const binding of ['redirect', 'post'] as const) {
    for (const signRequests of [false, true]) {
      const kind = signRequests ? 'signed' : 'unsigned';
      it(`${binding} binding, ${kind} AuthnRequest: the user comes back mapped`, async () => {
        const idp = createSamlIdp({ wantAuthnRequestsSigned: signRequests });
        const sp = samlProviderFor(idp, { binding, signRequests });
        const start = await startLogin(sp.config, sp.keys, sp.endpoints, 'intent-123');
        const request = requestOf(start);
        if (binding === 'redirect') {
          const url = new URL(start.redirectUrl ?? '');
          expect(`${url.origin}${url.pathname}`).toBe(idp.ssoUrl);
          expect(url.searchParams.has('Signature')).toBe(signRequests);
          expect(url.searchParams.get('SigAlg') ?? undefined).toBe(
            signRequests ? 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256' : undefined,
          );
        } else {
          expect(start.postForm?.url).toBe(idp.ssoUrl);
          const xml = Buffer.from(start.postForm?.fields.SAMLRequest ?? '', 'base64').toString();
          expect(xml).toContain('AuthnRequest');
          expect(xml.includes('SignatureValue')).toBe(signRequests);
        }
        // The IdP parses the request and (when it wants signed ones) verifies its signature
        // with the certificate from Portcullis's SP metadata.
        const read = await idp.readRequest(request);
        expect(read.id).toBe(start.requestId);
        expect(read.relayState).toBe('intent-123');
        expect(read.xml).toContain(
          `<saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${sp.endpoints.entityId}<`,
        );
        expect(read.xml).toContain(`AssertionConsumerServiceURL="${sp.endpoints.acsUrl}"`);
        expect(read.xml).toContain(`Destination="${idp.ssoUrl}"`);

        const samlResponse = await idp.respond(request, alice);
        const user = await completeLogin(sp.config, sp.keys, sp.endpoints, {
          samlResponse,
          expectedRequestId: start.requestId,
        });
        expect(user).toMatchObject({
          id: 'alice-7f3a',
          username: 'alice',
          email: 'alice@example.com',
          emailVerified: false,
          givenName: 'Alice',
          familyName: 'Liddell',
          displayName: 'Alice Liddell',
        });
        expect(user.raw.memberOf).toEqual(['staff', 'admins']);
      });
    }
  }

  it('an IdP that wants signed requests refuses an unsigned or tampered one', async () => {
    const idp = createSamlIdp({ wantAuthnRequestsSigned: true });
    const unsigned = samlProviderFor(idp, { signRequests: false });
    const start = await startLogin(unsigned.config, unsigned.keys, unsigned.endpoints, 'x');
    await expect(idp.readRequest(requestOf(start))).rejects.toThrow();

    const signed = samlProviderFor(idp, { signRequests: true });
    const ok = await startLogin(signed.config, signed.keys, signed.endpoints, 'x');
    const tampered = (ok.redirectUrl ?? '').replace('RelayState=x', 'RelayState=y');
    await expect(idp.readRequest({ binding: 'redirect', url: tampered })).rejects.toThrow(/SIGNATURE/);
  });

  it('accepts both levels signed, and only the response signed when assertions need no signature', async () => {
    const idp = createSamlIdp();
    const sp = samlProviderFor(idp);
    const start = await startLogin(sp.config, sp.keys, sp.endpoints, '');
    const both = await idp.respond(requestOf(start), alice, { sign: 'both' });
    await expect(
      completeLogin(sp.config, sp.keys, sp.endpoints, { samlResponse: both, expectedRequestId: start.requestId }),
    ).resolves.toMatchObject({ id: 'alice-7f3a' });

    const lax = samlProviderFor(idp, { wantAssertionsSigned: false });
    const start2 = await startLogin(lax.config, lax.keys, lax.endpoints, '');
    const responseOnly = await idp.respond(requestOf(start2), alice, { sign: 'response' });
    await expect(
      completeLogin(lax.config, lax.keys, lax.endpoints, {
        samlResponse: responseOnly,
        expectedRequestId: start2.requestId,
      }),
    ).resolves.toMatchObject({ email: 'alice@example.com' });
  });

  it('decrypts an encrypted assertion with the SP key', async () => {
    const idp = createSamlIdp();
    const sp = samlProviderFor(idp);
    const start = await startLogin(sp.config, sp.keys, sp.endpoints, '');
    const samlResponse = await idp.respond(requestOf(start), alice, { encrypt: true });
    const xml = Buffer.from(samlResponse, 'base64').toString();
    expect(xml).toContain('EncryptedAssertion');
    expect(xml).not.toContain('alice@example.com');
    const user = await completeLogin(sp.config, sp.keys, sp.endpoints, {
      samlResponse,
      expectedRequestId: start.requestId,
    });
    expect(user).toMatchObject({ id: 'alice-7f3a', email: 'alice@example.com' });
  });

  it('with transient NameIDs, the id comes from the configured attribute', async () => {
    const idp = createSamlIdp();
    const sp = samlProviderFor(idp, { nameIdFormat: 'transient', transientMappingAttributeName: 'employeeNumber' });
    const transient = { ...alice, nameId: '_t1', nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient' };
    const start = await startLogin(sp.config, sp.keys, sp.endpoints, '');
    const ok = await idp.respond(requestOf(start), {
      ...transient,
      attributes: { ...alice.attributes, employeeNumber: 'E-1001' },
    });
    await expect(
      completeLogin(sp.config, sp.keys, sp.endpoints, { samlResponse: ok, expectedRequestId: start.requestId }),
    ).resolves.toMatchObject({ id: 'E-1001' });

    const start2 = await startLogin(sp.config, sp.keys, sp.endpoints, '');
    const missing = await idp.respond(requestOf(start2), transient);
    await expect(
      completeLogin(sp.config, sp.keys, sp.endpoints, { samlResponse: missing, expectedRequestId: start2.requestId }),
    ).rejects.toMatchObject({ kind: 'unauthenticated', message: expect.stringMatching(/employeeNumber/) });
  });

  it('a RelayState longer than the 80 bytes SAML allows is refused', async () => {
    const idp = createSamlIdp();
    const sp = samlProviderFor(idp);
    await expect(startLogin(sp.config, sp.keys, sp.endpoints, 'x'.repeat(81))).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
  });

  it('a configured mapping wins over the defaults', async () => {
    const idp = createSamlIdp();
    const sp = samlProviderFor(idp, { mapping: { email: 'corpMail', username: 'samAccountName' } });
    const start = await startLogin(sp.config, sp.keys, sp.endpoints, '');
    const samlResponse = await idp.respond(requestOf(start), {
      ...alice,
      attributes: { ...alice.attributes, corpMail: 'a.liddell@corp.example', samAccountName: 'ALIDDELL' },
    });
    const user = await completeLogin(sp.config, sp.keys, sp.endpoints, {
      samlResponse,
      expectedRequestId: start.requestId,
    });
    expect(user).toMatchObject({ email: 'a.liddell@corp.example', username: 'ALIDDELL', givenName: 'Alice' });
  });
});
