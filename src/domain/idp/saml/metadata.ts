import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import { DomainError, invalidArgument } from '../../errors';
import { guardedFetch } from '../../outbound/guarded-fetch';
import { NAME_ID_FORMAT_URNS, type SamlEndpoints, type SamlProviderConfig, type SamlSpKeys } from './config';

/**
 * Portcullis's SP metadata for this provider: entityID, the HTTP-POST assertion consumer service,
 * the encryption key (always, so the IdP may encrypt assertions), the signing key and
 * AuthnRequestsSigned="true" when requests are signed, the NameID format and WantAssertionsSigned.
 */
export function spMetadata(config: SamlProviderConfig, keys: SamlSpKeys, endpoints: SamlEndpoints): string {
  return generateServiceProviderMetadata({
    issuer: endpoints.entityId,
    callbackUrl: endpoints.acsUrl,
    identifierFormat: NAME_ID_FORMAT_URNS[config.nameIdFormat],
    wantAssertionsSigned: config.wantAssertionsSigned,
    decryptionPvk: keys.privateKeyPem,
    decryptionCert: keys.certificatePem,
    ...(config.signRequests
      ? { privateKey: keys.privateKeyPem, publicCerts: keys.certificatePem, signatureAlgorithm: 'sha256' as const }
      : {}),
  });
}

/** Metadata larger than this is refused: real IdP metadata is a few kB, federation feeds are not wanted here. */
const MAX_METADATA_BYTES = 1024 * 1024;

export interface MetadataFetch {
  timeoutMs: number;
  /** the server runs in development mode (isDevelopmentIssuer): loopback IdPs may be reached */
  development: boolean;
}

/**
 * Fetches an IdP's metadata document through the guarded fetcher (https, no redirects, no address
 * inside the server's network, at most MAX_METADATA_BYTES); the caller validates it with checkSamlConfig.
 */
export async function fetchIdpMetadata(url: string, opts: MetadataFetch): Promise<string> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw invalidArgument('Errors.IdP.Saml.MetadataUrl', 'metadata_url is not a valid URL');
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw invalidArgument('Errors.IdP.Saml.MetadataUrl', 'metadata_url must be an http or https URL');
  }
  let res: Response;
  try {
    res = await guardedFetch(target, {
      purpose: 'metadata_url',
      development: opts.development,
      headers: { accept: 'application/samlmetadata+xml, */*' },
      maxBytes: MAX_METADATA_BYTES,
      timeoutMs: opts.timeoutMs,
    });
  } catch (err) {
    if (err instanceof DomainError) throw err;
    const why =
      err instanceof DOMException
        ? `did not arrive within ${opts.timeoutMs} ms`
        : `could not be fetched: ${((err as Error).cause as Error | undefined)?.message ?? (err as Error).message}`;
    throw new DomainError(
      'unavailable',
      'Errors.IdP.Saml.MetadataUnavailable',
      `the IdP metadata at ${target.origin} ${why}`,
    );
  }
  if (!res.ok) throw invalidArgument('Errors.IdP.Saml.MetadataUrl', `metadata_url answered HTTP ${res.status}`);
  return res.text();
}
