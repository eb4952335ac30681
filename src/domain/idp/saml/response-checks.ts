import { DomainError } from '../../errors';
import { parseXml } from './idp-metadata';

/**
 * Checks node-saml leaves to its caller, each a small named step. Those on the response envelope
 * (status, Destination) run on the raw document; those that decide whom the assertion is for run
 * on the assertion node-saml verified the signature of, never on unsigned parts.
 */
const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

const INVALID_RESPONSE = 'Errors.IdP.Saml.InvalidResponse';
export const FAILED_STATUS = 'Errors.IdP.Saml.NotSuccess';

export const refuse = (check: string) =>
  new DomainError('unauthenticated', INVALID_RESPONSE, `the SAML response was refused: ${check}`);

/** The IdP says the sign-in failed (or was cancelled): its status codes go into the message. */
export function checkStatusIsSuccess(response: Element): void {
  const status = child(response, PROTOCOL, 'Status');
  const code = status && child(status, PROTOCOL, 'StatusCode');
  const value = code?.getAttribute('Value') ?? '';
  if (value === SUCCESS) return;
  const second = code && child(code, PROTOCOL, 'StatusCode')?.getAttribute('Value');
  const message = status && child(status, PROTOCOL, 'StatusMessage')?.textContent;
  const described = [value || 'no status', second, message]
    .filter((s): s is string => Boolean(s))
    .map(shortStatus)
    .join(', ');
  throw new DomainError('unauthenticated', FAILED_STATUS, `the SAML IdP did not sign the user in: ${described}`);
}

/** Destination is optional in an unsigned response, but when present it must be our ACS (SAML core §3.2.2). */
export function checkDestination(response: Element, acsUrl: string): void {
  const destination = response.getAttribute('Destination');
  if (destination && destination !== acsUrl) {
    throw refuse(`its Destination ${destination} is not this service provider's ACS URL`);
  }
}

/** The assertion comes from the IdP this provider trusts, not another entity sharing its key. */
export function checkIssuer(assertion: Element, idpEntityId: string): void {
  const issuer = child(assertion, ASSERTION, 'Issuer')?.textContent?.trim();
  if (issuer !== idpEntityId) throw refuse(`the assertion was issued by ${issuer ?? 'nobody'}, not ${idpEntityId}`);
}

/**
 * SAML profiles §4.1.4.3: a bearer SubjectConfirmationData must name our ACS as Recipient and the
 * request as InResponseTo. Checking these inside the signed assertion matters because the
 * Response's own InResponseTo may be unsigned: without it an attacker could wrap a captured
 * assertion into a response "answering" their own request.
 */
export function checkSubjectConfirmation(assertion: Element, acsUrl: string, requestId: string): void {
  const subject = child(assertion, ASSERTION, 'Subject');
  const bearers = (subject ? children(subject, ASSERTION, 'SubjectConfirmation') : [])
    .filter((c) => c.getAttribute('Method') === BEARER)
    .map((c) => child(c, ASSERTION, 'SubjectConfirmationData'))
    .filter((d): d is Element => d !== undefined);
  if (bearers.length === 0) throw refuse('the assertion has no bearer SubjectConfirmationData');
  const forUs = bearers.filter((d) => d.getAttribute('Recipient') === acsUrl);
  if (forUs.length === 0) {
    const recipients = bearers.map((d) => d.getAttribute('Recipient') || 'none').join(', ');
    throw refuse(`its Recipient (${recipients}) is not this service provider's ACS URL`);
  }
  if (!forUs.some((d) => d.getAttribute('InResponseTo') === requestId)) {
    throw refuse('the assertion does not answer the sign-in request it was expected for (InResponseTo)');
  }
}

/** The verified assertion's element, from the XML node-saml returns after checking its signature. */
export function assertionElement(xml: string): Element {
  const root = parseXml(xml, 'assertion').documentElement;
  if (!root || root.namespaceURI !== ASSERTION || root.localName !== 'Assertion') {
    throw refuse('the signed content is not an assertion');
  }
  return root;
}

export function responseElement(xml: string): Element {
  const root = parseXml(xml, 'saml_response').documentElement;
  if (!root || root.namespaceURI !== PROTOCOL || root.localName !== 'Response') {
    throw new DomainError('invalid_argument', 'Errors.IdP.Saml.Malformed', 'saml_response is not a SAML 2.0 Response');
  }
  return root;
}

const shortStatus = (s: string) => s.replace('urn:oasis:names:tc:SAML:2.0:status:', '');

function children(parent: Element, ns: string, localName: string): Element[] {
  return Array.from(parent.childNodes).filter(
    (n): n is Element =>
      n.nodeType === 1 && (n as Element).namespaceURI === ns && (n as Element).localName === localName,
  );
}

const child = (parent: Element, ns: string, localName: string): Element | undefined =>
  children(parent, ns, localName)[0];
