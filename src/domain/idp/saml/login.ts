import { type Profile, SamlStatusError } from '@node-saml/node-saml';
import { DomainError, failedPrecondition, invalidArgument } from '../../errors';
import type { ExternalUser } from '../external-user';
import type { SamlEndpoints, SamlProviderConfig, SamlSpKeys } from './config';
import { parseIdpMetadata } from './idp-metadata';
import { toExternalUser } from './map-user';
import {
  assertionElement,
  checkDestination,
  checkIssuer,
  checkStatusIsSuccess,
  checkSubjectConfirmation,
  FAILED_STATUS,
  refuse,
  responseElement,
} from './response-checks';
import { newRequestId, serviceProvider } from './service-provider';

export interface SamlLoginStart {
  /** the AuthnRequest ID: store it on the single-use intent and pass it back to completeLogin */
  requestId: string;
  /** HTTP-Redirect binding: send the browser here */
  redirectUrl?: string;
  /** HTTP-POST binding: have the browser POST these fields to url (an auto-submitting form) */
  postForm?: { url: string; fields: Record<string, string> };
}

/** Builds the AuthnRequest for the provider's binding, signed when the provider says so. */
export async function startLogin(
  config: SamlProviderConfig,
  keys: SamlSpKeys,
  endpoints: SamlEndpoints,
  relayState: string,
): Promise<SamlLoginStart> {
  // SAML bindings §3.4.3 / §3.5.3: RelayState MUST NOT exceed 80 bytes; IdPs may cut or refuse more.
  if (Buffer.byteLength(relayState) > 80) {
    throw invalidArgument('Errors.IdP.Saml.RelayState', 'relay_state must be at most 80 bytes');
  }
  const idp = parseIdpMetadata(config.metadataXml);
  const url = idp.ssoUrls[config.binding];
  if (!url) {
    throw failedPrecondition('Errors.IdP.Saml.NoSsoEndpoint', `the IdP metadata has no ${config.binding} SSO endpoint`);
  }
  const requestId = newRequestId();
  const saml = serviceProvider(config, keys, endpoints, idp, requestId);
  if (config.binding === 'redirect') {
    return { requestId, redirectUrl: await saml.getAuthorizeUrlAsync(relayState, undefined, {}) };
  }
  const message = await saml.getAuthorizeMessageAsync(relayState);
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(message)) fields[name] = String(value);
  return { requestId, postForm: { url, fields } };
}

/** A response larger than this is refused before parsing (real ones are a few kB). */
const MAX_RESPONSE_BYTES = 512 * 1024;

/**
 * Verifies the SAMLResponse the browser POSTed to the ACS and returns the user it asserts. Refused
 * (unauthenticated): a bad or missing signature, another audience, another Recipient or
 * Destination, an assertion outside its validity, an answer to another request or to none, a
 * non-Success status. Malformed input is invalid_argument.
 */
export async function completeLogin(
  config: SamlProviderConfig,
  keys: SamlSpKeys,
  endpoints: SamlEndpoints,
  input: { samlResponse: string; expectedRequestId: string },
): Promise<ExternalUser> {
  if (!input.expectedRequestId) throw invalidArgument('Errors.IdP.Saml.Malformed', 'expected_request_id is required');
  const response = responseElement(decodeResponse(input.samlResponse));
  checkStatusIsSuccess(response);
  checkDestination(response, endpoints.acsUrl);
  const idp = parseIdpMetadata(config.metadataXml);
  const saml = serviceProvider(config, keys, endpoints, idp, input.expectedRequestId);
  const profile = await verified(() => saml.validatePostResponseAsync({ SAMLResponse: input.samlResponse }));
  const assertion = assertionElement(profile.getAssertionXml?.() ?? '');
  checkIssuer(assertion, idp.entityId);
  checkSubjectConfirmation(assertion, endpoints.acsUrl, input.expectedRequestId);
  return toExternalUser(profile, config);
}

function decodeResponse(samlResponse: string): string {
  if (typeof samlResponse !== 'string' || samlResponse.length === 0) {
    throw invalidArgument('Errors.IdP.Saml.Malformed', 'saml_response is required');
  }
  if (samlResponse.length > (MAX_RESPONSE_BYTES * 4) / 3 + 4) {
    throw invalidArgument('Errors.IdP.Saml.Malformed', 'saml_response is too large');
  }
  if (!/^[A-Za-z0-9+/=\s]+$/.test(samlResponse)) {
    throw invalidArgument('Errors.IdP.Saml.Malformed', 'saml_response is not base64');
  }
  return Buffer.from(samlResponse, 'base64').toString('utf8');
}

/** Runs node-saml's validation and says which of its checks failed, in Portcullis's error terms. */
async function verified(validate: () => Promise<{ profile: Profile | null }>): Promise<Profile> {
  let profile: Profile | null;
  try {
    ({ profile } = await validate());
  } catch (err) {
    if (err instanceof DomainError) throw err;
    if (err instanceof SamlStatusError) {
      throw new DomainError('unauthenticated', FAILED_STATUS, `the SAML IdP did not sign the user in: ${err.message}`);
    }
    throw refuse(`${whichCheck((err as Error).message)} (${(err as Error).message})`);
  }
  if (!profile) throw refuse('it holds no assertion (the IdP could not sign the user in passively)');
  return profile;
}

const CHECKS: [RegExp, string][] = [
  [/InResponseTo/i, 'it does not answer the sign-in request it was expected for (InResponseTo)'],
  // xml-encryption passes OpenSSL's words through when the key does not fit ("oaep decoding error").
  [
    /decrypt|EncryptedAssertion|oaep|rsa routines/i,
    'the encrypted assertion cannot be decrypted with this provider key',
  ],
  [/signature/i, 'its signature is missing or does not verify against the IdP certificate'],
  [/audience/i, 'the assertion is for another audience'],
  [/expired|not yet valid|too old|subject confirmation/i, 'the assertion is outside its validity period'],
];

function whichCheck(message: string): string {
  return CHECKS.find(([pattern]) => pattern.test(message))?.[1] ?? 'it is not a valid SAML response';
}
