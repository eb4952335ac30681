/**
 * A real SAML 2.0 identity provider for tests, built on samlify (with xmllint schema validation).
 * It parses and, when it wants signed requests, verifies Portcullis's AuthnRequests with the SP
 * certificate from Portcullis's own SP metadata, and answers with responses signed by its key.
 * The attack variants only change inputs of that real IdP (audience, recipient, times,
 * InResponseTo, status, which parts it signs, which key signs), so the one thing wrong in each
 * response is the thing under test.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as xmllint from '@authenio/samlify-node-xmllint';
import * as samlify from 'samlify';
import {
  checkSamlConfig,
  generateSpKeys,
  type SamlEndpoints,
  type SamlProviderConfig,
  type SamlSpKeys,
} from '../../src/domain/idp/saml/config';
import { spMetadata } from '../../src/domain/idp/saml/metadata';

samlify.setSchemaValidator(xmllint);

const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

export type SamlAuthnRequest =
  | { binding: 'redirect'; url: string }
  | { binding: 'post'; fields: Record<string, string> };

export interface SamlTestUser {
  nameId: string;
  nameIdFormat?: string;
  attributes: Record<string, string | string[]>;
}

export interface RespondOptions {
  audience?: string;
  /** SubjectConfirmationData Recipient (inside the assertion) */
  recipient?: string;
  /** the Response's Destination */
  destination?: string;
  notBefore?: Date;
  notOnOrAfter?: Date;
  /** null: an unsolicited (IdP-initiated) response without InResponseTo */
  inResponseTo?: string | null;
  /** default 'assertion' */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  encrypt?: boolean;
  /** encrypt to this certificate instead of the SP's encryption certificate */
  encryptTo?: string;
  /** a top-level status code URN; anything but Success yields a response without assertion… */
  status?: string;
  /** …unless this asks to keep the (signed) assertion next to the failure status */
  keepAssertion?: boolean;
  /** 'stranger': sign with a key pair that is not in the IdP metadata */
  signingKey?: 'idp' | 'stranger';
  issuer?: string;
}

export interface SamlTestIdp {
  entityId: string;
  ssoUrl: string;
  idpMetadataXml: string;
  /** Registers the SP (Portcullis) by its metadata, as an IdP admin would. */
  trustSp(spMetadataXml: string): void;
  /** Parses (and, when the IdP wants signed requests, verifies) an AuthnRequest; returns its ID. */
  readRequest(request: SamlAuthnRequest): Promise<{ id: string; relayState?: string; xml: string }>;
  /** Signs the user in for the request: the base64 SAMLResponse to POST to the ACS. */
  respond(request: SamlAuthnRequest, user: SamlTestUser, opts?: RespondOptions): Promise<string>;
}

const keysOf = { idp: generateSpKeys('Test SAML IdP'), stranger: generateSpKeys('Test SAML IdP') };

export function createSamlIdp(
  options: { wantAuthnRequestsSigned?: boolean; ssoUrl?: string; entityId?: string } = {},
): SamlTestIdp {
  const ssoUrl = options.ssoUrl ?? 'https://idp.test/sso';
  const entityId = options.entityId ?? 'https://idp.test/metadata';
  const idpFor = (key: 'idp' | 'stranger', encrypt: boolean) =>
    samlify.IdentityProvider({
      entityID: entityId,
      privateKey: keysOf[key].privateKeyPem,
      signingCert: keysOf[key].certificatePem,
      wantAuthnRequestsSigned: options.wantAuthnRequestsSigned ?? false,
      isAssertionEncrypted: encrypt,
      singleSignOnService: [
        { Binding: REDIRECT, Location: ssoUrl },
        { Binding: POST, Location: ssoUrl },
      ],
      // Not used; declared so samlify does not warn about its absence on every construction.
      singleLogoutService: [{ Binding: REDIRECT, Location: ssoUrl.replace(/sso$/, 'slo') }],
    });
  const idp = idpFor('idp', false);
  let sp: samlify.ServiceProviderInstance | undefined;
  const trustedSp = () => {
    if (!sp) throw new Error('trustSp(spMetadataXml) first');
    return sp;
  };

  async function readRequest(request: SamlAuthnRequest) {
    const result =
      request.binding === 'redirect'
        ? await idp.parseLoginRequest(trustedSp(), 'redirect', redirectEnvelope(request.url))
        : await idp.parseLoginRequest(trustedSp(), 'post', { body: request.fields });
    const relayState =
      request.binding === 'redirect'
        ? (new URL(request.url).searchParams.get('RelayState') ?? undefined)
        : request.fields.RelayState;
    return { id: String(result.extract.request?.id ?? ''), relayState, xml: result.samlContent };
  }

  async function respond(request: SamlAuthnRequest, user: SamlTestUser, opts: RespondOptions = {}) {
    const { id: requestId } = await readRequest(request);
    const spMeta = trustedSp().entityMeta;
    const acs = String(spMeta.getAssertionConsumerService('post'));
    const failed = opts.status !== undefined && !opts.status.endsWith(':Success');
    const sign = opts.sign ?? (failed && !opts.keepAssertion ? 'response' : 'assertion');
    const now = new Date();
    const later = new Date(now.getTime() + 5 * 60_000);
    const values = {
      ID: newId(),
      AssertionID: newId(),
      Destination: opts.destination ?? acs,
      Audience: opts.audience ?? spMeta.getEntityID(),
      SubjectRecipient: opts.recipient ?? acs,
      Issuer: opts.issuer ?? entityId,
      IssueInstant: now.toISOString(),
      StatusCode: opts.status ?? 'urn:oasis:names:tc:SAML:2.0:status:Success',
      ConditionsNotBefore: (opts.notBefore ?? now).toISOString(),
      ConditionsNotOnOrAfter: (opts.notOnOrAfter ?? later).toISOString(),
      SubjectConfirmationDataNotOnOrAfter: (opts.notOnOrAfter ?? later).toISOString(),
      NameIDFormat: user.nameIdFormat ?? 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
      NameID: user.nameId,
      InResponseTo: opts.inResponseTo === undefined ? requestId : opts.inResponseTo,
    };
    let template = samlify.SamlLib.defaultLoginResponseTemplate.context;
    if (failed && !opts.keepAssertion) template = template.replace(/<saml:Assertion[\s\S]*<\/saml:Assertion>/, '');
    const xml = samlify.SamlLib.replaceTagsByValue(template, values)
      .replace('{AuthnStatement}', authnStatement(now))
      .replace('{AttributeStatement}', attributeStatement(user.attributes));
    if (sign === 'none') return Buffer.from(xml).toString('base64');

    // samlify signs the assertion when the SP wants signed assertions, and the message when the
    // SP wants signed messages or does not want signed assertions.
    const responseSp = samlify.ServiceProvider({
      entityID: spMeta.getEntityID(),
      assertionConsumerService: [{ Binding: POST, Location: acs }],
      encryptCert: opts.encryptTo ?? (spMeta.getX509Certificate('encryption') as string),
      wantAssertionsSigned: sign === 'assertion' || sign === 'both',
      wantMessageSigned: sign === 'response' || sign === 'both',
    });
    const result = await idpFor(opts.signingKey ?? 'idp', opts.encrypt ?? false).createLoginResponse(
      responseSp,
      { extract: { request: { id: requestId } } },
      'post',
      { email: user.nameId },
      { customTagReplacement: () => ({ id: values.ID, context: xml }) },
    );
    return result.context;
  }

  return {
    entityId,
    ssoUrl,
    idpMetadataXml: idp.getMetadata(),
    trustSp: (xml) => {
      sp = samlify.ServiceProvider({ metadata: xml });
    },
    readRequest,
    respond,
  };
}

/** The same IdP behind HTTP on 127.0.0.1: GET /metadata serves its metadata. */
export async function startSamlIdp(
  options: { wantAuthnRequestsSigned?: boolean } = {},
): Promise<SamlTestIdp & { metadataUrl: string; server: Server; close(): Promise<void> }> {
  let metadata = '';
  const server = createServer((req, res) => {
    if (req.url === '/metadata') {
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadata);
    } else if (req.url === '/slow') {
      setTimeout(() => res.writeHead(200).end(metadata), 5_000).unref();
    } else if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<x>${'a'.repeat(2 * 1024 * 1024)}</x>`);
    } else {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp = createSamlIdp({ ...options, ssoUrl: `${base}/sso`, entityId: `${base}/metadata` });
  metadata = idp.idpMetadataXml;
  return {
    ...idp,
    metadataUrl: `${base}/metadata`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * samlify verifies a redirect-binding signature over the octet string exactly as it appeared in
 * the URL (SAML bindings §3.4.4.1): every parameter up to, not including, Signature.
 */
function redirectEnvelope(url: string) {
  const rawQuery = new URL(url).search.slice(1);
  const octetString = rawQuery
    .split('&')
    .filter((p) => !p.startsWith('Signature='))
    .join('&');
  return { query: Object.fromEntries(new URL(url).searchParams), octetString };
}

const newId = () => `_${randomBytes(16).toString('hex')}`;

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function authnStatement(now: Date): string {
  return (
    `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${newId()}"><saml:AuthnContext>` +
    '<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport' +
    '</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>'
  );
}

function attributeStatement(attributes: Record<string, string | string[]>): string {
  const entries = Object.entries(attributes);
  if (entries.length === 0) return '';
  const attrs = entries.map(([name, value]) => {
    const values = (Array.isArray(value) ? value : [value])
      .map((v) => `<saml:AttributeValue xsi:type="xs:string">${escapeXml(v)}</saml:AttributeValue>`)
      .join('');
    const format = 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri';
    return `<saml:Attribute Name="${escapeXml(name)}" NameFormat="${format}">${values}</saml:Attribute>`;
  });
  return `<saml:AttributeStatement>${attrs.join('')}</saml:AttributeStatement>`;
}

/** Portcullis's side of a provider that trusts `idp`, registered with it through Portcullis's SP metadata. */
export function samlProviderFor(
  idp: SamlTestIdp,
  config: Partial<SamlProviderConfig> = {},
): { config: SamlProviderConfig; keys: SamlSpKeys; endpoints: SamlEndpoints } {
  const full = checkSamlConfig({ metadataXml: idp.idpMetadataXml, ...config });
  const endpoints = {
    entityId: 'https://portcullis.test/idps/saml-1/metadata',
    acsUrl: 'https://portcullis.test/idps/saml-1/acs',
  };
  idp.trustSp(spMetadata(full, spKeys, endpoints));
  return { config: full, keys: spKeys, endpoints };
}

const spKeys = generateSpKeys('Portcullis test SP');
