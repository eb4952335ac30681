import { randomBytes } from 'node:crypto';
import { type CacheProvider, SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { NAME_ID_FORMAT_URNS, type SamlEndpoints, type SamlProviderConfig, type SamlSpKeys } from './config';
import type { IdpMetadata } from './idp-metadata';

/** Clock difference between Portcullis and the IdP tolerated on NotBefore / NotOnOrAfter. */
const CLOCK_SKEW_MS = 60_000;

/** A fresh AuthnRequest ID: an xs:ID (so it starts with a letter or underscore), 160 random bits. */
export const newRequestId = () => `_${randomBytes(20).toString('hex')}`;

/**
 * node-saml configured for one provider and one sign-in. `requestId` is both the ID of the
 * AuthnRequest it creates and the only InResponseTo it accepts: node-saml keeps issued IDs in a
 * cache, and this cache knows exactly the one request the caller's single-use intent stored, so an
 * answer to any other request, or to none (IdP-initiated), is refused.
 */
export function serviceProvider(
  config: SamlProviderConfig,
  keys: SamlSpKeys,
  endpoints: SamlEndpoints,
  idp: IdpMetadata,
  requestId: string,
): SAML {
  return new SAML({
    issuer: endpoints.entityId,
    audience: endpoints.entityId,
    callbackUrl: endpoints.acsUrl,
    entryPoint: idp.ssoUrls[config.binding],
    idpCert: idp.signingCerts,
    decryptionPvk: keys.privateKeyPem,
    ...(config.signRequests
      ? { privateKey: keys.privateKeyPem, publicCert: keys.certificatePem, signatureAlgorithm: 'sha256' as const }
      : {}),
    digestAlgorithm: 'sha256',
    identifierFormat: NAME_ID_FORMAT_URNS[config.nameIdFormat],
    // The HTTP-POST binding carries the request base64 but not deflated (SAML bindings §3.5.4).
    skipRequestCompression: config.binding === 'post',
    authnRequestBinding: config.binding === 'post' ? 'HTTP-POST' : 'HTTP-Redirect',
    // Portcullis asks for no particular authentication context: the IdP's own policy applies.
    disableRequestedAuthnContext: true,
    wantAssertionsSigned: config.wantAssertionsSigned,
    // A signed assertion in an unsigned response is the common case (and enough); node-saml still
    // demands that the response or the assertion be signed.
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.always,
    cacheProvider: onlyRequest(requestId),
    generateUniqueId: () => requestId,
  });
}

function onlyRequest(requestId: string): CacheProvider {
  const issuedAt = new Date().toISOString();
  return {
    // The caller's intent remembers the request; nothing to keep here.
    saveAsync: async (_key, value) => ({ value, createdAt: Date.now() }),
    getAsync: async (key) => (key === requestId ? issuedAt : null),
    removeAsync: async (key) => key,
  };
}
