import { DOMParser } from '@xmldom/xmldom';
import { invalidArgument } from '../../errors';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const BINDING_URNS = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
} as const;

/** What Portcullis needs from an IdP's metadata. */
export interface IdpMetadata {
  entityId: string;
  /** SingleSignOnService location per binding, when the IdP offers that binding */
  ssoUrls: Partial<Record<keyof typeof BINDING_URNS, string>>;
  /** PEM certificates whose keys may sign responses (KeyDescriptor use="signing" or without use) */
  signingCerts: string[];
}

/** Parses an IdP's metadata; any problem is an invalid `metadata_xml`. */
export function parseIdpMetadata(xml: string): IdpMetadata {
  const doc = parseXml(xml, 'metadata_xml');
  const root = doc.documentElement;
  // An EntitiesDescriptor (a federation feed) holds many IdPs; Portcullis wants the one.
  if (!root || root.namespaceURI !== MD || root.localName !== 'EntityDescriptor') {
    throw invalidArgument('Errors.IdP.Saml.Metadata', 'metadata_xml must be a SAML 2.0 md:EntityDescriptor');
  }
  const entityId = root.getAttribute('entityID') ?? '';
  if (!entityId) throw invalidArgument('Errors.IdP.Saml.Metadata', 'metadata_xml has no entityID');
  const idp = children(root, MD, 'IDPSSODescriptor')[0];
  if (!idp) throw invalidArgument('Errors.IdP.Saml.Metadata', 'metadata_xml has no IDPSSODescriptor');
  const ssoUrls: IdpMetadata['ssoUrls'] = {};
  for (const sso of children(idp, MD, 'SingleSignOnService')) {
    const binding = sso.getAttribute('Binding');
    const location = sso.getAttribute('Location');
    for (const [name, urn] of Object.entries(BINDING_URNS) as [keyof typeof BINDING_URNS, string][]) {
      if (binding === urn && location && !ssoUrls[name]) ssoUrls[name] = location;
    }
  }
  const signingCerts: string[] = [];
  for (const kd of children(idp, MD, 'KeyDescriptor')) {
    const use = kd.getAttribute('use');
    if (use && use !== 'signing') continue;
    for (const cert of Array.from(kd.getElementsByTagNameNS(DS, 'X509Certificate'))) {
      const base64 = (cert.textContent ?? '').replace(/\s+/g, '');
      if (base64) signingCerts.push(toPem(base64));
    }
  }
  return { entityId, ssoUrls, signingCerts };
}

/**
 * Parses XML strictly: a document type declaration is refused outright, because SAML never needs
 * one and entity declarations are how XML bombs and external-entity reads start.
 */
export function parseXml(xml: string, field: string): Document {
  if (/<!DOCTYPE/i.test(xml)) throw invalidArgument('Errors.IdP.Saml.Xml', `${field} must not contain a DOCTYPE`);
  const errors: string[] = [];
  const doc = new DOMParser({
    locator: {},
    errorHandler: {
      warning: () => {},
      error: (m) => errors.push(String(m)),
      fatalError: (m) => errors.push(String(m)),
    },
  }).parseFromString(xml, 'text/xml');
  if (errors.length > 0 || !doc.documentElement) {
    throw invalidArgument('Errors.IdP.Saml.Xml', `${field} is not well-formed XML: ${errors[0] ?? 'empty document'}`);
  }
  return doc as unknown as Document;
}

function children(parent: Element, ns: string, localName: string): Element[] {
  return Array.from(parent.childNodes).filter(
    (n): n is Element =>
      n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === localName,
  );
}

function toPem(base64: string): string {
  return `-----BEGIN CERTIFICATE-----\n${(base64.match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
}
