import { generateServiceProviderMetadata } from '@node-saml/node-saml';
import { DomainError, invalidArgument } from '../../errors';
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
export const MAX_METADATA_BYTES = 1024 * 1024;

/** Fetches an IdP's metadata document; the caller validates it with checkSamlConfig. */
export async function fetchIdpMetadata(url: string, timeoutMs: number): Promise<string> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw invalidArgument('Errors.IdP.Saml.MetadataUrl', 'metadata_url is not a valid URL');
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw invalidArgument('Errors.IdP.Saml.MetadataUrl', 'metadata_url must be an http or https URL');
  }
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(target, {
      signal,
      redirect: 'follow',
      headers: { accept: 'application/samlmetadata+xml, */*' },
    });
    if (!res.ok) {
      await res.body?.cancel();
      throw invalidArgument('Errors.IdP.Saml.MetadataUrl', `metadata_url answered HTTP ${res.status}`);
    }
    return await readLimited(res);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    if (signal.aborted) {
      throw new DomainError(
        'unavailable',
        'Errors.IdP.Saml.MetadataUnavailable',
        `the IdP metadata at ${target.origin} did not arrive within ${timeoutMs} ms`,
      );
    }
    throw new DomainError(
      'unavailable',
      'Errors.IdP.Saml.MetadataUnavailable',
      `the IdP metadata at ${target.origin} could not be fetched: ${(err as Error).message}`,
    );
  }
}

async function readLimited(res: Response): Promise<string> {
  if (Number(res.headers.get('content-length') ?? 0) > MAX_METADATA_BYTES) {
    await res.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_METADATA_BYTES) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = () => invalidArgument('Errors.IdP.Saml.MetadataUrl', 'metadata_url returned more than 1 MB');
