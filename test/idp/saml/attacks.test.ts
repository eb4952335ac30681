import { beforeAll, describe, expect, it } from 'vitest';
import { generateSpKeys } from '../../../src/domain/idp/saml/config';
import { completeLogin, startLogin } from '../../../src/domain/idp/saml/login';
import { createSamlIdp, type RespondOptions, type SamlTestIdp, samlProviderFor } from '../../helpers/saml-idp';

// Each test is an attacker's move against a working setup: the real IdP signs, with its own key,
// a response where exactly one thing is wrong (or the attacker edits a genuine one), and
// Portcullis must refuse it with an error saying which check failed.

const alice = {
  nameId: 'alice-7f3a',
  attributes: { email: 'alice@example.com', givenName: 'Alice' },
};

let idp: SamlTestIdp;
let sp: ReturnType<typeof samlProviderFor>;
beforeAll(() => {
  idp = createSamlIdp();
  sp = samlProviderFor(idp);
});

async function signIn() {
  const start = await startLogin(sp.config, sp.keys, sp.endpoints, 'intent');
  return { start, request: { binding: 'redirect' as const, url: start.redirectUrl ?? '' } };
}

async function attempt(opts: RespondOptions, edit: (xml: string) => string = (x) => x) {
  const { start, request } = await signIn();
  const genuine = await idp.respond(request, alice, opts);
  const samlResponse = Buffer.from(edit(Buffer.from(genuine, 'base64').toString())).toString('base64');
  return completeLogin(sp.config, sp.keys, sp.endpoints, { samlResponse, expectedRequestId: start.requestId });
}

const refused = (check: RegExp) => ({
  kind: 'unauthenticated',
  key: 'Errors.IdP.Saml.InvalidResponse',
  message: expect.stringMatching(check),
});

describe('SAML responses an attacker might present', () => {
  it('the untouched response is accepted (the control for every case below)', async () => {
    await expect(attempt({})).resolves.toMatchObject({ id: 'alice-7f3a', email: 'alice@example.com' });
  });

  it('an assertion for another service provider (audience)', async () => {
    await expect(attempt({ audience: 'https://other-sp.test/metadata' })).rejects.toMatchObject(refused(/audience/));
  });

  it('an assertion whose Recipient is another ACS', async () => {
    await expect(attempt({ recipient: 'https://other-sp.test/acs' })).rejects.toMatchObject(refused(/Recipient/));
  });

  it('a response whose Destination is another ACS', async () => {
    await expect(attempt({ destination: 'https://other-sp.test/acs' })).rejects.toMatchObject(refused(/Destination/));
  });

  it('an expired assertion (past NotOnOrAfter)', async () => {
    const past = (min: number) => new Date(Date.now() - min * 60_000);
    await expect(attempt({ notBefore: past(20), notOnOrAfter: past(10) })).rejects.toMatchObject(
      refused(/validity period/),
    );
  });

  it('an assertion not valid yet (before NotBefore)', async () => {
    const future = new Date(Date.now() + 10 * 60_000);
    await expect(attempt({ notBefore: future })).rejects.toMatchObject(refused(/validity period/));
  });

  it('a few seconds of clock skew are tolerated', async () => {
    const justNow = new Date(Date.now() - 20_000);
    await expect(attempt({ notBefore: justNow, notOnOrAfter: justNow })).resolves.toMatchObject({ id: 'alice-7f3a' });
    const soon = new Date(Date.now() + 20_000);
    await expect(attempt({ notBefore: soon })).resolves.toMatchObject({ id: 'alice-7f3a' });
  });

  it('a response to another request (InResponseTo)', async () => {
    await expect(attempt({ inResponseTo: '_a-request-portcullis-never-made' })).rejects.toMatchObject(
      refused(/InResponseTo/),
    );
  });

  it("a response to the attacker's own sign-in, presented in the victim's", async () => {
    const attacker = await signIn();
    const victim = await signIn();
    const samlResponse = await idp.respond(attacker.request, alice);
    await expect(
      completeLogin(sp.config, sp.keys, sp.endpoints, { samlResponse, expectedRequestId: victim.start.requestId }),
    ).rejects.toMatchObject(refused(/InResponseTo/));
  });

  it('an unsolicited (IdP-initiated) response', async () => {
    await expect(attempt({ inResponseTo: null })).rejects.toMatchObject(refused(/InResponseTo/));
  });

  it("a signed assertion re-wrapped in a response whose unsigned InResponseTo names the victim's request", async () => {
    const captured = await signIn();
    const victim = await signIn();
    const genuine = Buffer.from(await idp.respond(captured.request, alice), 'base64').toString();
    // Only the Response element's attribute changes: the signed assertion still answers `captured`.
    const rewrapped = genuine.replace(/(<samlp:Response[^>]*InResponseTo=")[^"]*"/, `$1${victim.start.requestId}"`);
    expect(rewrapped).not.toBe(genuine);
    await expect(
      completeLogin(sp.config, sp.keys, sp.endpoints, {
        samlResponse: Buffer.from(rewrapped).toString('base64'),
        expectedRequestId: victim.start.requestId,
      }),
    ).rejects.toMatchObject(refused(/InResponseTo/));
  });

  it('a replayed response in a new sign-in', async () => {
    const first = await signIn();
    const samlResponse = await idp.respond(first.request, alice);
    await completeLogin(sp.config, sp.keys, sp.endpoints, { samlResponse, expectedRequestId: first.start.requestId });
    const second = await signIn();
    await expect(
      completeLogin(sp.config, sp.keys, sp.endpoints, { samlResponse, expectedRequestId: second.start.requestId }),
    ).rejects.toMatchObject(refused(/InResponseTo/));
  });

  it('an unsigned response', async () => {
    await expect(attempt({ sign: 'none' })).rejects.toMatchObject(refused(/signature/));
  });

  it('a signed response around an unsigned assertion (assertions must be signed)', async () => {
    await expect(attempt({ sign: 'response' })).rejects.toMatchObject(refused(/signature/));
  });

  it('an assertion edited after signing', async () => {
    const edit = (xml: string) => xml.replace('alice@example.com', 'mallory@example.com');
    await expect(attempt({}, edit)).rejects.toMatchObject(refused(/signature/));
  });

  it('a NameID edited after signing', async () => {
    const edit = (xml: string) => xml.replace('>alice-7f3a<', '>bob<');
    await expect(attempt({}, edit)).rejects.toMatchObject(refused(/signature/));
  });

  it('a second, unsigned assertion slipped in next to the signed one', async () => {
    const edit = (xml: string) => {
      const assertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(xml)?.[0] ?? '';
      const forged = assertion.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '').replace('alice-7f3a', 'bob');
      return xml.replace('<saml:Assertion', `${forged}<saml:Assertion`);
    };
    await expect(attempt({}, edit)).rejects.toMatchObject(refused(/signature/));
  });

  it('an encrypted assertion that is not signed inside', async () => {
    await expect(attempt({ encrypt: true, sign: 'response' })).rejects.toMatchObject(refused(/signature/));
  });

  it("an assertion encrypted for another key than this provider's", async () => {
    const encryptTo = generateSpKeys('someone else').certificatePem;
    await expect(attempt({ encrypt: true, encryptTo })).rejects.toMatchObject(refused(/decrypted/));
  });

  it('a response signed by a key that is not in the IdP metadata', async () => {
    await expect(attempt({ signingKey: 'stranger' })).rejects.toMatchObject(refused(/signature/));
    await expect(attempt({ signingKey: 'stranger', sign: 'both' })).rejects.toMatchObject(refused(/signature/));
  });

  it('an assertion issued under another entity id with the same key', async () => {
    await expect(attempt({ issuer: 'https://other-idp.test/metadata' })).rejects.toMatchObject(refused(/issued by/));
  });

  it('a non-success status is a refusal naming the status', async () => {
    await expect(attempt({ status: 'urn:oasis:names:tc:SAML:2.0:status:Responder' })).rejects.toMatchObject({
      kind: 'unauthenticated',
      key: 'Errors.IdP.Saml.NotSuccess',
      message: expect.stringMatching(/Responder/),
    });
  });

  it('a failure status is a refusal even with a signed assertion beside it', async () => {
    const status = 'urn:oasis:names:tc:SAML:2.0:status:Requester';
    await expect(attempt({ status, keepAssertion: true })).rejects.toMatchObject({
      key: 'Errors.IdP.Saml.NotSuccess',
      message: expect.stringMatching(/Requester/),
    });
  });

  it('malformed input is invalid_argument, not a crash', async () => {
    const { start } = await signIn();
    const complete = (samlResponse: string) =>
      completeLogin(sp.config, sp.keys, sp.endpoints, { samlResponse, expectedRequestId: start.requestId });
    await expect(complete('')).rejects.toMatchObject({ kind: 'invalid_argument' });
    await expect(complete('%%% not base64 %%%')).rejects.toMatchObject({ kind: 'invalid_argument' });
    await expect(complete(Buffer.from('hello').toString('base64'))).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    const bomb =
      '<!DOCTYPE r [<!ENTITY a "aaaa">]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>';
    await expect(complete(Buffer.from(bomb).toString('base64'))).rejects.toMatchObject({
      kind: 'invalid_argument',
      message: expect.stringMatching(/DOCTYPE/),
    });
    await expect(
      complete(
        Buffer.from('<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>').toString('base64'),
      ),
    ).rejects.toMatchObject({ kind: 'invalid_argument' });
  });
});
